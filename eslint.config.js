import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

// The domain and the pipeline answer in outcomes and refusal kinds; only lambdas/api/ and the
// handlers turn them into HTTP statuses, so neither may reach for the API layer, the kit its shapes are
// built with (lambdas/api-kit/: field builders, examples), or HTTP-shaped types.
const noApiLayer = { regex: '^\\.\\.?/(.*/)?api(-kit)?(/|$)', message: 'Return an outcome or throw a Refusal; lambdas/api/ decides the HTTP status.' };
const noHttpTypes = {
  name: 'aws-lambda',
  importNames: ['APIGatewayProxyEventV2', 'APIGatewayProxyResultV2', 'APIGatewayProxyStructuredResultV2', 'APIGatewayProxyEvent', 'APIGatewayProxyResult'],
  message: 'HTTP requests and responses belong to lambdas/api/ and the handlers.',
};

// lambdas/store/ owns the table's items, and within it only the toolkit sends requests (table.ts, over
// the client made in client.ts): conditions, update expressions, batch retries and paging are written
// once there, and an item module that needs something new adds it to the toolkit.
const STORE_TOOLKIT = ['lambdas/store/table.ts', 'lambdas/store/client.ts'];
const onlyThroughToolkit = 'Only the store toolkit (lambdas/store/table.ts) talks to DynamoDB; use or add a helper there, from a store module.';
const noDynamoOutsideStore = [
  { group: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'], message: onlyThroughToolkit },
  { group: ['**/store/client'], message: onlyThroughToolkit },
];

// A feature's API shapes (lambdas/<feature>/shapes.ts) are classic zod and belong to the API: no
// function but the api one may load them.
const noShapesOutsideApi = { group: ['**/shapes'], message: 'API shapes are for lambdas/api/ only; share the record or a use case instead.' };

// Feature modules: one folder per resource (record and entity, use cases, API shapes).
const FEATURES = ['accounts', 'aws-connections', 'brand', 'custom-domains', 'destinations', 'erasures', 'event-types', 'events', 'exports', 'listen', 'portal-sessions', 'replays', 'routes', 'signing-keys', 'sources'];
const featureCode = FEATURES.map((f) => `lambdas/${f}/**/*.ts`);
const featureShapes = FEATURES.map((f) => `lambdas/${f}/shapes.ts`);

const miniNamespaceOnly = {
  selector: "ImportDeclaration[source.value=/^zod(\\/mini)?$/][importKind!='type'] > ImportSpecifier",
  message: "Import zod as a namespace (`import * as z from 'zod'` or 'zod/mini'): a named import, `{ z }` included, bundles every zod locale (~260 KB).",
};
const classicZodInApiOnly = {
  selector: "ImportDeclaration[source.value='zod'][importKind!='type']",
  message: "Outside lambdas/api/, use `import * as z from 'zod/mini'`: classic zod adds ~110 KB to every function that loads it.",
};

export default tseslint.config(
  // test/fixtures/lint/ breaks the rules on purpose; test/unit/lint-rules.test.ts lints it.
  { ignores: ['node_modules/', 'cdk.out/', '.hookgate/', 'coverage/', 'bench/out/', 'clients/typescript/dist/', 'clients/cli/dist/', 'test/fixtures/lint/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', structuredClone: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['lambdas/domain/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [noHttpTypes], patterns: [noApiLayer, noShapesOutsideApi, ...noDynamoOutsideStore, { group: ['@aws-sdk/*', 'aws-cdk-lib', 'aws-cdk-lib/*'], message: 'Domain code stays free of AWS imports.' }] }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Domain code reads no environment; pass values in.' }],
    },
  },
  {
    files: ['lambdas/pipeline/**/*.ts', ...featureCode],
    ignores: featureShapes,
    rules: { 'no-restricted-imports': ['error', { paths: [noHttpTypes], patterns: [noApiLayer, noShapesOutsideApi, ...noDynamoOutsideStore] }] },
  },
  {
    files: ['lambdas/**/*.ts'],
    ignores: [...STORE_TOOLKIT, 'lambdas/domain/**', 'lambdas/pipeline/**', 'lambdas/api/**', ...featureCode],
    rules: { 'no-restricted-imports': ['error', { patterns: [noShapesOutsideApi, ...noDynamoOutsideStore] }] },
  },
  {
    files: ['lambdas/api/**/*.ts', ...featureShapes],
    rules: { 'no-restricted-imports': ['error', { patterns: noDynamoOutsideStore }] },
  },
  // The CLI is packed into one file with everything it imports: from the gateway it may take the pure
  // domain (the signing code), never a module that brings AWS clients, the store or process.env in.
  {
    files: ['clients/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{ group: ['**/lambdas/*', '**/lambdas/*/**', '!**/lambdas/domain', '!**/lambdas/domain/**', '@aws-sdk/*', 'aws-cdk-lib', 'aws-cdk-lib/*'], message: 'The CLI bundle takes only lambdas/domain/ from the gateway, and no AWS SDK.' }],
      }],
    },
  },
  // An import cycle makes module order decide what is initialised when (a `const` read before it is
  // set), and ties modules that should depend one way. Type-only imports do not count: they are erased.
  {
    files: ['**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.mjs'] })],
    },
    rules: { 'import-x/no-cycle': 'error' },
  },
  // Cold start: esbuild drops what a function does not use from `import * as z from 'zod'` (or
  // 'zod/mini'), but not from the `z` named re-export, which drags zod's 40 locales in (~260 KB).
  { files: ['lambdas/**/*.ts'], rules: { 'no-restricted-syntax': ['error', miniNamespaceOnly] } },
  // Classic zod (~110 KB minified even as a namespace) is for the management API only.
  { files: ['lambdas/**/*.ts'], ignores: ['lambdas/api/**', 'lambdas/api-kit/**', ...featureShapes], rules: { 'no-restricted-syntax': ['error', miniNamespaceOnly, classicZodInApiOnly] } },
);
