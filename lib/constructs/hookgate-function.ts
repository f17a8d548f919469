import { fileURLToPath } from 'node:url';
import { Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV } from '../resource-definitions';

/** Repository root, from this module's own location (lib/constructs/ → ../../). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One file per Lambda entry in lambdas/handlers/, each exporting `handler`. */
export type HandlerName = 'api' | 'ingest' | 'deliver' | 'reconciler' | 'export' | 'sweeper' | 'domain-provisioner';

export function handlerEntry(name: HandlerName): string {
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
}

// esbuild's ESM output has no `require`; CommonJS dependencies bundled inside still call it.
const ESM_REQUIRE_BANNER =
  "import { createRequire as __hookgateCreateRequire } from 'node:module'; const require = __hookgateCreateRequire(import.meta.url);";

/**
 * A Node 24 arm64 Lambda bundled locally with esbuild (no Docker), with its own role that can
 * only write to its own log group, X-Ray tracing, a log retention (one month unless told), and
 * `hookgate-<handler>` as the `service` of its log lines and traces.
 */
export class HookgateFunction extends Construct {
  readonly fn: NodejsFunction;
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

    this.fn = new NodejsFunction(this, 'Function', {
      entry: handlerEntry(props.handler),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: fileURLToPath(new URL('../../package-lock.json', import.meta.url)),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      description: props.description,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        [ENV.serviceName]: `hookgate-${props.handler}`,
        ...props.environment,
      },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        minify: true,
        // Minified class names would turn error names in logs into single letters.
        keepNames: true,
        sourceMap: true,
        sourcesContent: false,
        banner: ESM_REQUIRE_BANNER,
        // Bundle the AWS SDK v3 too: the version is pinned by our lockfile, not by the runtime.
        externalModules: [],
      },
    });

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Added by `tracing: ACTIVE`: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.',
    });
  }
}
