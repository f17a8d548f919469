import { connectionInUseMessage, NO_PRINCIPAL_MESSAGE, createConnection, connectionTrustPolicy, findManagedConnection, listManagedConnections, removeConnection, templateOf, verifyConnection } from '../../aws-connections';
import {
  awsConnectionCheckResponse,
  awsConnectionErrors,
  awsConnectionResponse,
  awsConnectionTemplateResponse,
  createAwsConnectionBody,
  exampleAwsConnection,
  listAwsConnectionsQuery,
  parseKeylessBody,
  presentConnection,
} from '../../aws-connections/shapes';
import type { AwsConnectionRecord } from '../../aws-connections/record';
import { connectionTemplate } from '../../domain/aws-connections';
import { notFound } from '../../domain/errors';
import { ACCOUNT_ACTOR } from '../../destinations/changes';
import type { ApiRequest } from '../http';
import { publicBaseUrl } from '../public-url';
import { json, jsonBody, list, noContent } from '../route-doc';
import { settled } from '../outcomes';
import { defineRoute, type Route } from '../router';
import { CUSTOMER_MESSAGE } from '../../api-kit/schemas';
import { parsePathId, parseWith } from '../../api-kit/validation';

const present = (c: AwsConnectionRecord, request: ApiRequest) => presentConnection(c, connectionTrustPolicy(c), `${publicBaseUrl(request)}/v1/aws-connections/${c.id}/template`);

async function ownConnection(accountId: string, id: string | undefined): Promise<AwsConnectionRecord> {
  const connection = await findManagedConnection(accountId, parsePathId(id), ACCOUNT_ACTOR);
  if (!connection) throw notFound();
  return connection;
}

const exampleTemplate = connectionTemplate(
  { roleName: exampleAwsConnection.role_name, trustPolicy: exampleAwsConnection.trust_policy },
  [{ type: 'aws_sns', topic_arn: 'arn:aws:sns:eu-west-1:123456789012:orders' }],
  'aws',
);

export const awsConnectionRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/v1/aws-connections',
    auth: 'api_key',
    doc: {
      operationId: 'createAwsConnection',
      summary: 'Create an AWS connection: a role in a customer’s AWS account that Hookgate will assume',
      description:
        'No AWS credential is taken or stored: the answer names the role, its trust policy (Hookgate’s principals under a generated `external_id`) and the CloudFormation template that creates it. Deploy it in `aws_account_id`, then `POST /v1/aws-connections/{id}/verify`.',
      tag: 'AWS connections',
      body: jsonBody(createAwsConnectionBody, { aws_account_id: '123456789012', customer: 'cus_42' }),
      responses: { 201: json('The connection.', awsConnectionResponse, exampleAwsConnection) },
      errors: { 400: awsConnectionErrors.create, 403: [NO_PRINCIPAL_MESSAGE] },
    },
    handle: async ({ request, principal, now }) => {
      const body = parseKeylessBody(request, createAwsConnectionBody);
      return { status: 201, data: present(await createConnection(principal.accountId, body, now), request) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/aws-connections',
    auth: 'api_key',
    doc: {
      operationId: 'listAwsConnections',
      summary: 'List AWS connections',
      tag: 'AWS connections',
      query: listAwsConnectionsQuery,
      responses: { 200: list('The account’s connections, newest first.', awsConnectionResponse, [exampleAwsConnection]) },
      errors: { 400: [CUSTOMER_MESSAGE] },
    },
    handle: async ({ request, principal }) => {
      const { customer } = parseWith(listAwsConnectionsQuery, request.query);
      return { status: 200, data: (await listManagedConnections(principal.accountId, ACCOUNT_ACTOR, customer)).map((c) => present(c, request)) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/aws-connections/:id',
    auth: 'api_key',
    doc: {
      operationId: 'getAwsConnection',
      summary: 'Show an AWS connection',
      tag: 'AWS connections',
      responses: { 200: json('The connection.', awsConnectionResponse, exampleAwsConnection) },
    },
    handle: async ({ request, params, principal }) => ({ status: 200, data: present(await ownConnection(principal.accountId, params.id), request) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/aws-connections/:id/template',
    auth: 'api_key',
    doc: {
      operationId: 'getAwsConnectionTemplate',
      summary: 'The CloudFormation template that creates the connection’s role',
      description:
        'JSON, in `data`: the role named `role_name`, trusting Hookgate’s principals under the connection’s external id, allowed one action per kind of target on exactly the targets of the destinations using the connection now (`sqs:SendMessage`, `sns:Publish`, `events:PutEvents`, `kinesis:PutRecord`, `lambda:InvokeFunction`, `s3:PutObject` on the bucket’s objects). Its parameter `KmsKeyArn` (default empty) adds `kms:GenerateDataKey` and `kms:Decrypt` on that key, for targets encrypted with a customer-managed KMS key. Fetch it again and update the stack after adding or changing a destination.',
      tag: 'AWS connections',
      responses: { 200: json('The template.', awsConnectionTemplateResponse, exampleTemplate) },
    },
    handle: async ({ params, principal }) => ({ status: 200, data: await templateOf(await ownConnection(principal.accountId, params.id)) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/aws-connections/:id/verify',
    auth: 'api_key',
    doc: {
      operationId: 'verifyAwsConnection',
      summary: 'Assume the connection’s role now, and keep the result on the connection',
      description: '`failed` carries STS’s error (the role is missing, or its trust policy does not allow Hookgate with this external id).',
      tag: 'AWS connections',
      responses: { 200: json('The result.', awsConnectionCheckResponse, { status: 'verified', error: null, checked_at: exampleAwsConnection.created_at }) },
    },
    handle: async ({ params, principal, now }) => ({ status: 200, data: await verifyConnection(await ownConnection(principal.accountId, params.id), now) }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/aws-connections/:id',
    auth: 'api_key',
    doc: {
      operationId: 'deleteAwsConnection',
      summary: 'Delete an AWS connection',
      description: 'Refused while a destination uses it. The role in the customer’s account stays until they delete its stack.',
      tag: 'AWS connections',
      responses: { 204: noContent('Deleted.') },
      errors: { 400: [connectionInUseMessage([exampleAwsConnection.id])] },
    },
    handle: async ({ params, principal }) => {
      settled(await removeConnection(await ownConnection(principal.accountId, params.id)));
      return { status: 204 };
    },
  }),
];
