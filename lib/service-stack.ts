import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { HookgateFunction, type HookgateFunctionProps } from './constructs/hookgate-function';
import { ENV } from './resource-definitions';
import type { StatefulResources } from './stateful-stack';

export interface ServiceStackProps extends StackProps {
  readonly stateful: StatefulResources;
  /** Reported by the API as the running version. */
  readonly version: string;
}

const API_THROTTLE = { burstLimit: 500, rateLimit: 1000 } as const;

// Deliberately no $context.path: on /ingest/{token} the path carries the source's secret token.
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    ip: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/** The stateless part: functions, the HTTP API and, later, queue consumers and schedules. */
export class ServiceStack extends Stack {
  readonly httpApi: apigw.HttpApi;
  readonly apiFunction: HookgateFunction;

  /** Environment every Hookgate function receives. */
  private readonly sharedEnvironment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: ServiceStackProps) {
    super(scope, id, props);
    const { table, deliveryQueue, payloadBucket, exportBucket } = props.stateful;

    this.httpApi = this.createHttpApi();

    this.sharedEnvironment = {
      [ENV.tableName]: table.tableName,
      [ENV.deliveryQueueUrl]: deliveryQueue.queueUrl,
      [ENV.payloadBucket]: payloadBucket.bucketName,
      [ENV.exportBucket]: exportBucket.bucketName,
      [ENV.publicUrl]: this.httpApi.apiEndpoint,
      [ENV.version]: props.version,
    };

    this.apiFunction = this.addFunction('ApiFunction', {
      handler: 'api',
      description: 'Hookgate management API (/v1/*)',
      // Just under the HTTP API's 30 s integration timeout.
      timeout: Duration.seconds(29),
    });
    // Grants follow features: the management API so far needs the table only.
    table.grantReadWriteData(this.apiFunction.fn);

    const apiIntegration = new HttpLambdaIntegration('ApiIntegration', this.apiFunction.fn);
    this.addRoutes('Api', ['/', '/{proxy+}'], [apigw.HttpMethod.ANY], apiIntegration);

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.apiEndpoint, description: 'Hookgate base URL' });
  }

  /** A function with the shared environment; `environment` adds to it. */
  addFunction(id: string, props: HookgateFunctionProps): HookgateFunction {
    return new HookgateFunction(this, id, {
      ...props,
      environment: { ...this.sharedEnvironment, ...props.environment },
    });
  }

  /** Routes without an API Gateway authorizer: every handler authenticates the request itself. */
  addRoutes(
    id: string,
    paths: readonly string[],
    methods: apigw.HttpMethod[],
    integration: apigw.HttpRouteIntegration,
  ): apigw.HttpRoute[] {
    const routes = paths.flatMap((path) => this.httpApi.addRoutes({ path, methods, integration }));
    for (const route of routes) {
      Validations.of(route).acknowledge({
        id: 'AwsSolutions-APIG4',
        reason: `${id} routes authenticate inside the Lambda: a Bearer API key for /v1/*, the secret path token plus the provider signature for /ingest/{token}.`,
      });
    }
    return routes;
  }

  private createHttpApi(): apigw.HttpApi {
    const httpApi = new apigw.HttpApi(this, 'HttpApi', {
      description: 'Hookgate webhook gateway',
      // The default stage is created below: HttpApiProps cannot set its throttling or access logs.
      createDefaultStage: false,
    });

    const accessLogs = new logs.LogGroup(this, 'HttpApiAccessLogs', { retention: logs.RetentionDays.ONE_MONTH });
    httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: API_THROTTLE,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogs),
        format: ACCESS_LOG_FORMAT,
      },
    });
    return httpApi;
  }
}
