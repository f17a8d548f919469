import * as z from 'zod';
import { forbidden, notFound } from '../../domain/errors';
import { MAX_RETENTION_DAYS, PLANS, resolveRetention } from '../../domain/plans';
import { createAccount } from '../../pipeline/create-account';
import { config } from '../../shared/config';
import { findAccount, updateAccount } from '../../store/accounts';
import { exampleAccount, exampleNewApiKey } from '../examples';
import { presentAccount, presentNewApiKey } from '../presenters';
import { json, jsonBody } from '../route-doc';
import { defineRoute, type Route } from '../router';
import { accountCreatedResponse, accountResponse, named } from '../schemas';
import { parseJsonBody, textField } from '../validation';

const retentionDays = z.int().min(1).max(MAX_RETENTION_DAYS);

const createAccountBody = named(
  'CreateAccountRequest',
  z.strictObject({
    name: textField('name').optional(),
    plan: z.enum(PLANS).optional(),
    retention_days: retentionDays.optional().describe('Enterprise only (1..3650). Defaults: free 1, pro 30, enterprise 90.'),
  }),
);

const updateAccountBody = named(
  'UpdateAccountRequest',
  z.strictObject({
    name: textField('name').optional(),
    plan: z.enum(PLANS).optional(),
    retention_days: retentionDays.optional().describe('Enterprise only; a plan change without it resets the window to the new plan’s default.'),
  }),
);

export const SIGNUP_CLOSED = 'sign-up is closed on this deployment: an operator creates accounts';

const retentionErrors = ['retention_days can only be set on the enterprise plan', 'retention_days must be at most 3650'];

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
      if (!config().signupOpen) throw forbidden(SIGNUP_CLOSED);
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
      responses: { 200: json('The account of the API key.', accountResponse, exampleAccount) },
    },
    handle: async ({ principal }) => {
      const account = await findAccount(principal.accountId);
      if (!account) throw notFound();
      return { status: 200, data: presentAccount(account) };
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
      const current = await findAccount(principal.accountId);
      if (!current) throw notFound();
      const plan = body.plan ?? current.plan;
      const retention_days = resolveRetention({
        plan,
        requestedDays: body.retention_days,
        currentPlan: current.plan,
        currentDays: current.retention_days,
      });
      const updated = await updateAccount(principal.accountId, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        plan,
        retention_days,
        updated_at: now.toISOString(),
      });
      if (!updated) throw notFound();
      return { status: 200, data: presentAccount(updated) };
    },
  }),
];
