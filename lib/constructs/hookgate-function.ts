import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { AssetHashType, DockerImage, Duration, Validations, type FileFingerprintOptions } from 'aws-cdk-lib';
import type { AssetOptions } from 'aws-cdk-lib/aws-s3-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../../lambdas/shared/resource-definitions';
import { lambdaBuildOptions } from './lambda-bundle';

/** Repository root, from this module's own location (lib/constructs/ → ../../). */
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One file per Lambda entry in lambdas/handlers/, each exporting `handler`. */
type HandlerName = 'api' | 'ingest' | 'deliver' | 'export' | 'sweeper' | 'domain-provisioner' | 'listen';

function handlerEntry(name: HandlerName): string {
  return fileURLToPath(new URL(`../../lambdas/handlers/${name}.ts`, import.meta.url));
}

export interface HookgateFunctionProps {
  readonly handler: HandlerName;
  readonly description?: string;
  readonly environment?: Readonly<Record<string, string>>;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default 10 seconds */
  readonly timeout?: Duration;
  /** How long its log group keeps logs. @default one month */
  readonly logRetention?: logs.RetentionDays;
  /** Concurrent executions set aside for it, which are also the most it may run. @default none reserved */
  readonly reservedConcurrency?: number;
}

/**
 * A Node 24 arm64 Lambda bundled locally with esbuild (no Docker; lambda-bundle.ts), with its own role that can
 * only write to its own log group, X-Ray tracing, a log retention (one month unless told), and
 * `hookgate-<handler>` as the `service` of its log lines and traces.
 */
export class HookgateFunction extends Construct {
  readonly fn: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: HookgateFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH });

    // A role of our own instead of AWSLambdaBasicExecutionRole (logs:* on every log group).
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Hookgate ${props.handler} function`,
    });
    this.logGroup.grantWrite(this.role);

    const entry = handlerEntry(props.handler);
    // CDK reuses a bundle across assets whose options look alike, and `local` does not count: without
    // the entry in the key, every function would get the first one's bundle. The asset staging honours
    // `extraHash` (FileFingerprintOptions), though lambda.Code.fromAsset's option type leaves it out.
    const assetOptions: AssetOptions & Pick<FileFingerprintOptions, 'extraHash'> = {
      assetHashType: AssetHashType.OUTPUT,
      extraHash: `lambdas/handlers/${props.handler}.ts`,
      bundling: {
        // Never used: local bundling always succeeds or throws (esbuild is a dev dependency).
        image: DockerImage.fromRegistry('dummy'),
        local: {
          tryBundle(outputDir) {
            buildSync(lambdaBuildOptions(entry, outputDir));
            return true;
          },
        },
      },
    };
    this.fn = new lambda.Function(this, 'Function', {
      code: lambda.Code.fromAsset(REPO_ROOT, assetOptions),
      handler: 'index.handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      // JSON, so Lambda's own lines can be filtered by level: at WARN its START, END and REPORT lines
      // (over half of a webhook's log bytes) are dropped, and a timeout or crash is still logged. The
      // handlers' lines are Powertools JSON already, passed as printed. Powertools takes
      // AWS_LAMBDA_LOG_LEVEL (this application level) over HOOKGATE_LOG_LEVEL, so the two must agree:
      // INFO, the level the handlers log at (the stack sets no HOOKGATE_LOG_LEVEL).
      loggingFormat: lambda.LoggingFormat.JSON,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      description: props.description,
      reservedConcurrentExecutions: props.reservedConcurrency,
      environment: {
        [ENV.serviceName]: `hookgate-${props.handler}`,
        ...props.environment,
      },
    });

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Added by `tracing: ACTIVE`: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    });
  }
}
