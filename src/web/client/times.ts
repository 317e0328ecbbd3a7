// Times: the server renders every <time> in UTC (labelled "UTC", the UTC time in its title); here
// each is shown in the viewer's own time zone instead, the title keeping the UTC time on hover.
const format = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });

export function localTimes(root: ParentNode): void {
  root.querySelectorAll<HTMLTimeElement>('time[datetime][title$=" UTC"]:not(.log-line > time)').forEach((t) => {
    const d = new Date(t.dateTime);
    if (!Number.isNaN(d.getTime())) t.textContent = format.format(d);
  });
}

// A job log's line times: the time of day in the viewer's zone; the UTC time, to the millisecond, on hover.
const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });

export function logTimes(root: ParentNode): void {
  root.querySelectorAll<HTMLTimeElement>('.log-line > time[datetime]:not([title])').forEach((t) => {
    const d = new Date(t.dateTime);
    if (Number.isNaN(d.getTime())) return;
    t.textContent = timeOfDay.format(d);
    t.title = `${t.dateTime.replace('T', ' ').replace('Z', '')} UTC`;
  });
}
