// Times: the server renders every <time> in UTC (labelled "UTC", the UTC time in its title); here
// each is shown in the viewer's own time zone instead, the title keeping the UTC time on hover.
const format = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });

export function localTimes(root: ParentNode): void {
  root.querySelectorAll<HTMLTimeElement>('time[datetime][title$=" UTC"]').forEach((t) => {
    const d = new Date(t.dateTime);
    if (!Number.isNaN(d.getTime())) t.textContent = format.format(d);
  });
}
