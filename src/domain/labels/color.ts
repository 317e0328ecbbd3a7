// Label colours as the reference takes them: `#RGB` or `#RRGGBB`, or a CSS colour name stored as
// its hex value; the text colour is dark on a light background, white on a dark one.

const NAMED: Record<string, string> = {
  aqua: '#00FFFF', black: '#000000', blue: '#0000FF', brown: '#A52A2A', coral: '#FF7F50', crimson: '#DC143C', cyan: '#00FFFF',
  fuchsia: '#FF00FF', gold: '#FFD700', gray: '#808080', green: '#008000', grey: '#808080', indigo: '#4B0082', lime: '#00FF00',
  magenta: '#FF00FF', maroon: '#800000', navy: '#000080', olive: '#808000', orange: '#FFA500', pink: '#FFC0CB', purple: '#800080',
  red: '#FF0000', salmon: '#FA8072', silver: '#C0C0C0', teal: '#008080', tomato: '#FF6347', turquoise: '#40E0D0', violet: '#EE82EE',
  white: '#FFFFFF', yellow: '#FFFF00', orchid: '#DA70D6', khaki: '#F0E68C', lavender: '#E6E6FA', plum: '#DDA0DD', tan: '#D2B48C',
};

const HEX = /^#(?:[0-9A-Fa-f]{3}){1,2}$/;

/** The colour to store: a hex as given, a name as its hex; null when it is neither. */
export function normalizeColor(input: string): string | null {
  const v = input.trim();
  if (HEX.test(v)) return v;
  return NAMED[v.toLowerCase()] ?? null;
}

export function textColorFor(color: string): string {
  if (!HEX.test(color)) return '#FFFFFF';
  let hex = color.slice(1);
  if (hex.length === 3) hex = [...hex].map((ch) => ch + ch).join('');
  const sum = parseInt(hex.slice(0, 2), 16) + parseInt(hex.slice(2, 4), 16) + parseInt(hex.slice(4, 6), 16);
  return sum > 500 ? '#1F1E24' : '#FFFFFF';
}
