// The pipeline-status and coverage badge images, drawn as the reference's badge templates draw
// them (its key/value texts, widths and status colours; `flat` and `flat-square` styles). Pure.

export type BadgeStyle = 'flat' | 'flat-square';

export interface BadgeOptions {
  key_text?: string;
  key_width?: number;
  style?: string;
}

const MAX_KEY_TEXT_SIZE = 64;
const MAX_KEY_WIDTH = 512;
const DEFAULT_KEY_WIDTH = 62;
const KEY_COLOR = '#555';

export const PIPELINE_STATUS_COLOR: Record<string, string> = {
  success: '#4c1',
  failed: '#e05d44',
  running: '#dfb317',
  pending: '#dfb317',
  preparing: '#a7a7a7',
  canceled: '#9f9f9f',
  skipped: '#9f9f9f',
  unknown: '#9f9f9f',
};

export const COVERAGE_COLOR = { good: '#4c1', acceptable: '#a3c51c', medium: '#dfb317', low: '#e05d44', unknown: '#9f9f9f' } as const;

export interface BadgeTemplate {
  keyText: string;
  keyWidth: number;
  valueText: string;
  valueWidth: number;
  valueColor: string;
}

const keyText = (o: BadgeOptions, entity: string): string =>
  o.key_text !== undefined && o.key_text.length <= MAX_KEY_TEXT_SIZE ? o.key_text : entity;
const keyWidth = (o: BadgeOptions): number =>
  o.key_width !== undefined && o.key_width >= 1 && o.key_width <= MAX_KEY_WIDTH ? o.key_width : DEFAULT_KEY_WIDTH;

/** The pipeline badge: `pipeline` | the status (`success` reads `passed`). */
export function pipelineTemplate(status: string, o: BadgeOptions): BadgeTemplate {
  return {
    keyText: keyText(o, 'pipeline'),
    keyWidth: keyWidth(o),
    valueText: status === 'success' ? 'passed' : status,
    valueWidth: 54,
    valueColor: PIPELINE_STATUS_COLOR[status] ?? PIPELINE_STATUS_COLOR.unknown,
  };
}

/** Coverage colours by the reference's default thresholds: 95 good, 90 acceptable, 75 medium. */
function coverageColor(coverage: number | null): string {
  if (coverage === null || coverage < 0 || coverage > 100) return COVERAGE_COLOR.unknown;
  if (coverage >= 95) return COVERAGE_COLOR.good;
  if (coverage >= 90) return COVERAGE_COLOR.acceptable;
  if (coverage >= 75) return COVERAGE_COLOR.medium;
  return COVERAGE_COLOR.low;
}

/** The coverage badge: `coverage` | `12.35%` (two decimals) or `unknown`. */
export function coverageTemplate(coverage: number | null, o: BadgeOptions): BadgeTemplate {
  const rounded = coverage === null ? null : Math.round(coverage * 100) / 100;
  return {
    keyText: keyText(o, 'coverage'),
    keyWidth: keyWidth(o),
    valueText: rounded === null ? 'unknown' : `${rounded.toFixed(2)}%`,
    valueWidth: rounded === null ? 58 : 54,
    valueColor: coverageColor(rounded),
  };
}

const escapeXml = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** The SVG document of a badge in the given style (anything but `flat-square` is `flat`). */
export function drawBadge(t: BadgeTemplate, style: string | undefined): string {
  const width = t.keyWidth + t.valueWidth;
  const keyX = Math.floor(t.keyWidth / 2);
  const valueX = t.keyWidth + Math.floor(t.valueWidth / 2);
  const key = escapeXml(t.keyText);
  const value = escapeXml(t.valueText);
  const font = 'font-family="DejaVu Sans,Verdana,Geneva,sans-serif" font-size="11"';
  if (style === 'flat-square') {
    return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20">
  <g shape-rendering="crispEdges">
    <path fill="${KEY_COLOR}" d="M0 0 h${t.keyWidth} v20 H0 z"/>
    <path fill="${t.valueColor}" d="M${t.keyWidth} 0 h${t.valueWidth} v20 H${t.keyWidth} z"/>
  </g>

  <g fill="#fff" text-anchor="middle">
    <g ${font}>
      <text x="${keyX}" y="14">
        ${key}
      </text>
      <text x="${valueX}" y="14">
        ${value}
      </text>
    </g>
  </g>
</svg>
`;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20">
  <linearGradient id="b" x2="0" y2="100%">
    <stop offset="0" stop-color="#bbb" stop-opacity=".1"/>
    <stop offset="1" stop-opacity=".1"/>
  </linearGradient>

  <mask id="a">
    <rect width="${width}" height="20" rx="3" fill="#fff"/>
  </mask>

  <g mask="url(#a)">
    <path fill="${KEY_COLOR}" d="M0 0h ${t.keyWidth}v 20H 0z"/>
    <path fill="${t.valueColor}" d="M${t.keyWidth} 0h ${t.valueWidth}v 20H ${t.keyWidth}z"/>
    <path fill="url(#b)" d="M0 0h ${width}v 20H 0z"/>
  </g>

  <g fill="#fff" text-anchor="middle">
    <g ${font}>
      <text x="${keyX}" y="15" fill="#010101" fill-opacity=".3">${key}</text>
      <text x="${keyX}" y="14">${key}</text>
      <text x="${valueX}" y="15" fill="#010101" fill-opacity=".3">${value}</text>
      <text x="${valueX}" y="14">${value}</text>
    </g>
  </g>
</svg>
`;
}
