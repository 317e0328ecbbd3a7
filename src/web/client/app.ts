// The web interface's one script: each feature finds its markup and wires it up.
import { initForms } from './forms.js';

initForms(document);
