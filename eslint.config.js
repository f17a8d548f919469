import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// The domain and the pipeline answer in outcomes and refusal kinds; only lambdas/api/ and the
// handlers turn them into HTTP statuses, so neither may reach for the API layer or HTTP-shaped types.
const noApiLayer = { regex: '^\\.\\.?/(.*/)?api(/|$)', message: 'Return an outcome or throw a Refusal; lambdas/api/ decides the HTTP status.' };
const noHttpTypes = {
  name: 'aws-lambda',
  importNames: ['APIGatewayProxyEventV2', 'APIGatewayProxyResultV2', 'APIGatewayProxyStructuredResultV2', 'APIGatewayProxyEvent', 'APIGatewayProxyResult'],
  message: 'HTTP requests and responses belong to lambdas/api/ and the handlers.',
};

// lambdas/store/ owns the table's items: nothing else talks to DynamoDB (the client is made in
// adapters/aws-clients.ts, for the store).
const noDynamoOutsideStore = [
  { group: ['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb'], message: 'Only lambdas/store/ talks to DynamoDB; add a store function.' },
  { group: ['**/adapters/aws-clients'], importNames: ['documentClient', 'dynamoDbClient'], message: 'Only lambdas/store/ talks to DynamoDB; add a store function.' },
];

// A feature's API shapes (lambdas/<feature>/shapes.ts) are classic zod and belong to the API: no
// function but the api one may load them.
const noShapesOutsideApi = { group: ['**/shapes'], message: 'API shapes are for lambdas/api/ only; share the record or a use case instead.' };

// Feature modules: one folder per resource (record and entity, use cases, API shapes).
const FEATURES = ['accounts', 'custom-domains', 'destinations', 'routes', 'sources'];
const featureCode = FEATURES.map((f) => `lambdas/${f}/**/*.ts`);
const featureShapes = FEATURES.map((f) => `lambdas/${f}/shapes.ts`);
// Entity modules moved out of lambdas/store/ that still send raw DynamoDB commands: they keep them
// until the store's toolkit (table.ts) covers those writes; remove each once it no longer does (and
// the block below with the last one: ESLint refuses an empty `files`).
const featureStoreHoldouts = ['lambdas/accounts/api-key-record.ts', 'lambdas/custom-domains/record.ts'];

const miniNamespaceOnly = {
  selector: "ImportDeclaration[source.value=/^zod(\\/mini)?$/][importKind!='type'] > ImportSpecifier",
  message: "Import zod as a namespace (`import * as z from 'zod'` or 'zod/mini'): a named import, `{ z }` included, bundles every zod locale (~260 KB).",
};
const classicZodInApiOnly = {
  selector: "ImportDeclaration[source.value='zod'][importKind!='type']",
  message: "Outside lambdas/api/, use `import * as z from 'zod/mini'`: classic zod adds ~110 KB to every function that loads it.",
};

export default tseslint.config(
  { ignores: ['node_modules/', 'cdk.out/', '.hookgate/', 'coverage/', 'bench/out/', 'clients/typescript/dist/'] },
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
    ignores: [...featureShapes, ...featureStoreHoldouts],
    rules: { 'no-restricted-imports': ['error', { paths: [noHttpTypes], patterns: [noApiLayer, noShapesOutsideApi, ...noDynamoOutsideStore] }] },
  },
  {
    files: featureStoreHoldouts,
    rules: { 'no-restricted-imports': ['error', { paths: [noHttpTypes], patterns: [noApiLayer, noShapesOutsideApi] }] },
  },
  {
    files: ['lambdas/**/*.ts'],
    ignores: ['lambdas/store/**', 'lambdas/domain/**', 'lambdas/pipeline/**', 'lambdas/api/**', 'lambdas/adapters/aws-clients.ts', ...featureCode],
    rules: { 'no-restricted-imports': ['error', { patterns: [noShapesOutsideApi, ...noDynamoOutsideStore] }] },
  },
  {
    files: ['lambdas/api/**/*.ts', ...featureShapes],
    rules: { 'no-restricted-imports': ['error', { patterns: noDynamoOutsideStore }] },
  },
  // Cold start: esbuild drops what a function does not use from `import * as z from 'zod'` (or
  // 'zod/mini'), but not from the `z` named re-export, which drags zod's 40 locales in (~260 KB).
  { files: ['lambdas/**/*.ts'], rules: { 'no-restricted-syntax': ['error', miniNamespaceOnly] } },
  // Classic zod (~110 KB minified even as a namespace) is for the management API only.
  { files: ['lambdas/**/*.ts'], ignores: ['lambdas/api/**', ...featureShapes], rules: { 'no-restricted-syntax': ['error', miniNamespaceOnly, classicZodInApiOnly] } },
);
