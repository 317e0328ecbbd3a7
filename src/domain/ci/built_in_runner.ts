// Who the built-in runner is, in `runner_id`, the `runner` object, hook bodies and job logs. A leaf
// module: the state machine, the runner, the job presenter and the hook bodies all name it.

export const BUILT_IN_RUNNER_ID = 1;
export const RUNNER_DESCRIPTION = 'Anvil built-in runner';
