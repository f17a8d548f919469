import { run } from './program.js';

// Not process.exit(): that could cut short what is still being written to a pipe.
void run(process.argv).then((code) => {
  process.exitCode = code;
});
