/** Prints the synthesised stacks as JSON (local/iam/roles.ts runs this in a child process). Argument: the AWS destination targets, a JSON array. */
import { synthesiseInProcess } from './roles';

const targets: unknown = JSON.parse(process.argv[2] ?? '[]');
if (!Array.isArray(targets) || !targets.every((target) => typeof target === 'string')) throw new Error('the argument must be a JSON array of ARNs');
process.stdout.write(JSON.stringify(await synthesiseInProcess(targets)));
