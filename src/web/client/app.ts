// The web interface's one script: each feature finds its markup and wires it up.
import { initForms } from './forms.js';
import { initJobLog } from './job_log.js';
import { initPipeline } from './pipeline.js';
import { initRefresh } from './refresh.js';
import { initSettings } from './settings.js';

initForms(document);
initRefresh(document);
initSettings(document);
initPipeline(document);
initJobLog(document);
