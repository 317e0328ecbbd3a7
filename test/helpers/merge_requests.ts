// Merge request test helpers: the exact key sets of the reference's entities.
export const MR_SIMPLE_KEYS = ['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'web_url'].sort();

export const MR_BASIC_KEYS = [
  ...MR_SIMPLE_KEYS, 'merged_by', 'merge_user', 'merged_at', 'closed_by', 'closed_at', 'target_branch', 'source_branch', 'user_notes_count', 'upvotes', 'downvotes',
  'author', 'assignees', 'assignee', 'reviewers', 'source_project_id', 'target_project_id', 'labels', 'draft', 'work_in_progress', 'milestone',
  'merge_when_pipeline_succeeds', 'merge_status', 'detailed_merge_status', 'sha', 'merge_commit_sha', 'squash_commit_sha', 'discussion_locked',
  'should_remove_source_branch', 'force_remove_source_branch', 'reference', 'references', 'web_url', 'time_stats', 'squash', 'task_completion_status',
  'has_conflicts', 'blocking_discussions_resolved',
].filter((k, i, a) => a.indexOf(k) === i).sort();

export const MR_KEYS = [
  ...MR_BASIC_KEYS, 'subscribed', 'changes_count', 'latest_build_started_at', 'latest_build_finished_at', 'first_deployed_to_production_at', 'pipeline',
  'head_pipeline', 'diff_refs', 'merge_error', 'user',
].sort();
