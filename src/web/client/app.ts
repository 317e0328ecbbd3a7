// The web interface's one script: each feature finds its markup and wires it up.
import { initForms } from './forms.js';
import { initJobLog } from './job_log.js';
import { initLogTools } from './log_tools.js';
import { initPipeline } from './pipeline.js';
import { initPipelinesList } from './pipelines_list.js';
import { initRefresh } from './refresh.js';
import { initSettings } from './settings.js';
import { startTicker } from './ticker.js';
import { localTimes } from './times.js';
import { initTreeCommits } from './tree_commits.js';

localTimes(document);
initForms(document);
initRefresh(document);
initSettings(document);
initPipeline(document);
initPipelinesList(document);
initJobLog(document);
initLogTools(document);
startTicker(document);
initTreeCommits(document);
