import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { generatePythonTypes } from '../clients/python/codegen/generate-types';
import { generateClientTypes, type OpenApiLike } from '../clients/typescript/codegen/generate-types';
import { buildOpenApiDocument, type OpenApiDocument } from '../lambdas/api/openapi';
import { apiOperations } from '../lambdas/api/routes';

/**
 * `npm run openapi`: regenerates docs/openapi.json from the routes (the same function serves
 * `GET /openapi.json`), then the TypeScript and Python clients' types from that file. `--check`
 * writes nothing and fails when any committed file is out of date (the unit tests run the same comparison).
 */
const root = new URL('../', import.meta.url);
export const OPENAPI_FILE = new URL('docs/openapi.json', root);
export const CLIENT_TYPES_FILE = new URL('clients/typescript/src/generated.ts', root);
export const PYTHON_TYPES_FILE = new URL('clients/python/hookgate/generated.py', root);

/** The committed document: `servers` names the local gateway; the served one names itself. */
export const openApiDocument = (): OpenApiDocument => buildOpenApiDocument(apiOperations());
export const renderOpenApi = (document: OpenApiDocument): string => `${JSON.stringify(document, null, 2)}\n`;
export const renderClientTypes = (openApiJson: string): string => generateClientTypes(JSON.parse(openApiJson) as OpenApiLike);
export const renderPythonTypes = (openApiJson: string): string => generatePythonTypes(JSON.parse(openApiJson) as OpenApiLike);

async function main(check: boolean): Promise<void> {
  const openApiJson = renderOpenApi(openApiDocument());
  const clientTypes = renderClientTypes(openApiJson);
  const files: Array<[URL, string]> = [
    [OPENAPI_FILE, openApiJson],
    [CLIENT_TYPES_FILE, clientTypes],
    [PYTHON_TYPES_FILE, renderPythonTypes(openApiJson)],
  ];
  let stale = 0;
  for (const [file, text] of files) {
    const current = await readFile(file, 'utf8').catch(() => '');
    const name = fileURLToPath(file).slice(fileURLToPath(root).length);
    if (current === text) continue;
    if (check) {
      stale++;
      console.error(`${name} is out of date: run npm run openapi`);
    } else {
      await writeFile(file, text);
      console.log(`wrote ${name}`);
    }
  }
  if (stale > 0) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await main(process.argv.includes('--check'));
}
