// Label resources (the reference's Entities::GroupLabel and ProjectLabel; LabelBasic on issues).
import { Type as T } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';

const basic = {
  id: T.Integer(),
  name: T.String(),
  color: T.String(),
  description: Nullable(T.String()),
  description_html: T.String(),
  text_color: T.String(),
};

/** LabelBasic: a label as issues and merge requests show it (`with_labels_details`). */
export const LabelBasic = T.Object(basic);

const counted = {
  ...basic,
  // Only with `with_counts=true`.
  open_issues_count: T.Optional(T.Integer()),
  closed_issues_count: T.Optional(T.Integer()),
  open_merge_requests_count: T.Optional(T.Integer()),
  subscribed: T.Boolean(),
};

export const GroupLabel = T.Object(counted);
export const ProjectLabel = T.Object({ ...counted, priority: Nullable(T.Integer()), is_project_label: T.Boolean() });
