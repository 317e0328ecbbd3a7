// Label views → the API's label shapes.
import type { LabelRow } from '../../db/repos/labels.js';
import { textColorFor } from '../../domain/labels/color.js';
import type { LabelView } from '../../domain/labels/service.js';
import { singleLineHtml } from '../../shared/markdown.js';

export const presentLabelBasic = (row: LabelRow) => ({
  id: row.id,
  name: row.title,
  color: row.color,
  description: row.description,
  description_html: singleLineHtml(row.description),
  text_color: textColorFor(row.color),
});

export const presentGroupLabel = (v: LabelView) => ({ ...presentLabelBasic(v.row), ...(v.counts ?? {}), subscribed: v.subscribed });

export const presentProjectLabel = (v: LabelView) => ({ ...presentGroupLabel(v), priority: v.priority, is_project_label: v.row.project_id !== null });
