import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

// The project's own ESLint configuration, run on snippets and on the fixtures in test/fixtures/lint/
// (which `npm run lint` skips: they break the rules on purpose), so a rule that goes missing from
// eslint.config.js fails here instead of silently letting violations in.

// Linting with the type-aware cycle rule loads the whole import graph: seconds on a busy machine.
const SLOW = { timeout: 60_000 };

let eslint: ESLint;
beforeAll(() => {
  eslint = new ESLint({ ignore: false });
});

const ruleIds = (results: ESLint.LintResult[]) => results.flatMap((result) => result.messages.map((message) => message.ruleId));

async function lintSnippet(code: string, filePath: string) {
  return ruleIds(await eslint.lintText(code, { filePath }));
}

describe('DynamoDB only through the store toolkit', SLOW, () => {
  const rawCall = [
    "import { GetCommand } from '@aws-sdk/lib-dynamodb';",
    "import { documentClient } from './client';",
    '',
    "export const read = () => documentClient().send(new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } }));",
    '',
  ].join('\n');

  it.each([
    ['a store module', 'lambdas/store/lint-fixture.ts', rawCall],
    ['an API route', 'lambdas/api/routes/lint-fixture.ts', rawCall.replace("'./client'", "'../../store/client'")],
    ['the pipeline', 'lambdas/pipeline/lint-fixture.ts', rawCall.replace("'./client'", "'../store/client'")],
    ['a feature module', 'lambdas/destinations/lint-fixture.ts', rawCall.replace("'./client'", "'../store/client'")],
    ['a handler catching a condition failure', 'lambdas/handlers/lint-fixture.ts', "import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';\n\nexport const known = ConditionalCheckFailedException;\n"],
  ])('fails a raw DynamoDB call in %s', async (_where, filePath, code) => {
    expect(await lintSnippet(code, filePath)).toContain('no-restricted-imports');
  });

  it('allows it in the toolkit itself', async () => {
    expect(await lintSnippet(rawCall, 'lambdas/store/table.ts')).toEqual([]);
  });

  it('stays quiet on a store module that uses the toolkit', async () => {
    const code = "import { getItem } from './table';\n\nexport const read = (schema: Parameters<typeof getItem>[1]) => getItem({ pk: 'a', sk: 'b' }, schema);\n";
    expect(await lintSnippet(code, 'lambdas/store/lint-fixture.ts')).toEqual([]);
  });
});

describe('the CLI takes only the pure domain from the gateway', SLOW, () => {
  it.each([
    ['the store', "import { getItem } from '../../../lambdas/store/table';\n\nexport const read = getItem;\n"],
    ['a feature module', "import { createDestination } from '../../../lambdas/destinations';\n\nexport const create = createDestination;\n"],
    ['an AWS client', "import { SQSClient } from '@aws-sdk/client-sqs';\n\nexport const sqs = SQSClient;\n"],
  ])('fails an import of %s', async (_what, code) => {
    expect(await lintSnippet(code, 'clients/cli/src/lint-fixture.ts')).toContain('no-restricted-imports');
  });

  it('allows the signing code and the TypeScript client', async () => {
    const code = "import { hookgateSignature } from '../../../lambdas/domain/signing';\nimport { Hookgate } from '../../typescript/src/index';\n\nexport const both = [hookgateSignature, Hookgate];\n";
    expect(await lintSnippet(code, 'clients/cli/src/lint-fixture.ts')).toEqual([]);
  });
});

describe('import cycles', SLOW, () => {
  it('fail lint on both modules of a cycle', async () => {
    const results = await eslint.lintFiles(['test/fixtures/lint/cycle/*.ts']);
    expect(results).toHaveLength(2);
    for (const result of results) expect(ruleIds([result])).toEqual(['import-x/no-cycle']);
  });

  it('stay quiet on the same modules without the cycle', async () => {
    const results = await eslint.lintFiles(['test/fixtures/lint/acyclic/*.ts']);
    expect(results).toHaveLength(2);
    expect(ruleIds(results)).toEqual([]);
  });
});

describe('API shapes stay in the API', SLOW, () => {
  const usesShapes = "import { presentDestination } from '../destinations/shapes';\n\nexport const shown = presentDestination;\n";
  it.each([
    ['the pipeline', 'lambdas/pipeline/lint-fixture.ts'],
    ['a handler', 'lambdas/handlers/lint-fixture.ts'],
    ['a feature’s use cases', 'lambdas/routes/lint-fixture.ts'],
  ])('fails when %s loads a shapes module', async (_where, filePath) => {
    expect(await lintSnippet(usesShapes, filePath)).toContain('no-restricted-imports');
  });

  it('allows it in the API', async () => {
    expect(await lintSnippet(usesShapes.replace("'../destinations/shapes'", "'../../destinations/shapes'"), 'lambdas/api/routes/lint-fixture.ts')).not.toContain('no-restricted-imports');
  });
});
