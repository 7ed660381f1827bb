// One reader of a trace line for the host's exports and the page's import (src-shared).
export { traceLineEvent } from '@shared/contracts/trace-line';
