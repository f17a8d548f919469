import { notFound } from '../../domain/errors';
import { changeAccount, createAccount, findAccount, SIGNUP_CLOSED, signUpRefusal } from '../../accounts';
import {
  accountCreatedResponse,
  accountDetailResponse,
  accountResponse,
  createAccountBody,
  exampleAccount,
  exampleAccountDetail,
  exampleNewApiKey,
  presentAccount,
  presentAccountDetail,
  presentNewApiKey,
  retentionErrors,
  updateAccountBody,
} from '../../accounts/shapes';
import { json, jsonBody } from '../route-doc';
import { publicBaseUrl } from '../public-url';
import { defineRoute, type Route } from '../router';
import { settled } from '../outcomes';
import { parseJsonBody } from '../../api-kit/validation';

export const accountRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/accounts',
    auth: 'none',
    signUp: true,
    doc: {
      operationId: 'createAccount',
      summary: 'Create an account and its bootstrap API key',
      description:
        'Open (no credentials) unless the deployment closed sign-up (CDK context `signup=closed`): then `403` and an operator creates accounts with `npm run create-account`. Never on a verified custom domain (`404`): a customer’s branded hostname is not a sign-up page. The answer holds the API key, shown this once: only its hash is stored.',
      tag: 'Accounts',
      body: jsonBody(createAccountBody, { name: 'Acme', plan: 'free' }),
      responses: {
        201: json('The account and its bootstrap key.', accountCreatedResponse, { account: exampleAccount, api_key: exampleNewApiKey }),
      },
      errors: {
        400: ['name must be a string', 'name must be at most 200 characters', 'plan must be one of: free, pro, enterprise', ...retentionErrors, 'unknown field: nmae'],
        403: [SIGNUP_CLOSED],
        404: ['Not found'],
      },
    },
    handle: async ({ request, now }) => {
      const closed = signUpRefusal();
      if (closed) throw closed;
      const body = parseJsonBody(request, createAccountBody);
      const { account, apiKey, key } = await createAccount({ name: body.name, plan: body.plan, retentionDays: body.retention_days }, now);
      return { status: 201, data: { account: presentAccount(account), api_key: presentNewApiKey(apiKey, key) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/account',
    auth: 'api_key',
    doc: {
      operationId: 'getAccount',
      summary: 'Show your account',
      tag: 'Accounts',
      responses: { 200: json('The account of the API key.', accountDetailResponse, exampleAccountDetail) },
    },
    handle: async ({ principal, request }) => {
      const account = await findAccount(principal.accountId);
      if (!account) throw notFound();
      return { status: 200, data: presentAccountDetail(account, publicBaseUrl(request)) };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/v1/account',
    auth: 'api_key',
    doc: {
      operationId: 'updateAccount',
      summary: 'Change your account’s name, plan or retention',
      description:
        'Changing the plan without `retention_days` resets the window to the new plan’s default; an enterprise account keeps its custom window while its plan stays.',
      tag: 'Accounts',
      body: jsonBody(updateAccountBody, { plan: 'enterprise', retention_days: 365 }),
      responses: {
        200: json('The updated account.', accountResponse, { ...exampleAccount, plan: 'enterprise', retention_days: 365 }),
      },
      errors: { 400: ['plan must be one of: free, pro, enterprise', ...retentionErrors, 'unknown field: nmae'] },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseJsonBody(request, updateAccountBody);
      const { account } = settled(await changeAccount(principal.accountId, { name: body.name, plan: body.plan, retentionDays: body.retention_days }, now));
      return { status: 200, data: presentAccount(account) };
    },
  }),
];
