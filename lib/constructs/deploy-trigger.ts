import { Validations } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as triggers from 'aws-cdk-lib/triggers';
import { Construct } from 'constructs';

export interface DeployTriggerProps {
  /** The function to start. It is invoked as its current version, so any change to it runs it again. */
  readonly handler: lambda.Function;
  /** Provisioned before the run: the function's role, policy and log group. */
  readonly executeAfter: readonly Construct[];
}

/** Construct id of the provider that aws-cdk-lib/triggers creates once per stack. */
export const TRIGGER_PROVIDER_ID = 'AWSCDK.TriggerCustomResourceProviderCustomResourceProvider';

/**
 * Starts a function during a deployment, after `executeAfter` is in place: on the stack's creation and
 * on every deploy that changes the function (its code, configuration or environment, which holds the
 * release version). Not on a deploy that leaves the function as it is: CloudFormation only updates a
 * custom resource whose properties changed.
 *
 * Asynchronous (InvocationType Event): the deploy waits for Lambda to accept the invocation, not for
 * the function to finish. A function that fails or runs long then never fails or rolls back the
 * deployment (which would also block the deploy of its fix); its errors are in its own logs and
 * handled by Lambda's asynchronous retries. The deploy still fails when the invocation itself is
 * refused (missing function or permission), which is a deployment error.
 *
 * The provider is CDK's own Lambda, created once per stack (TRIGGER_PROVIDER_ID): a role with the
 * AWS-managed AWSLambdaBasicExecutionRole and lambda:InvokeFunction on `<handler ARN>:*`, and a
 * Node.js function whose runtime aws-cdk-lib picks. Both are raw CfnResources, which cdk-nag's rules
 * (written against CfnRole/CfnFunction) never inspect, so there is no finding to acknowledge: the
 * infra tests pin down its permissions instead.
 */
export class DeployTrigger extends Construct {
  readonly trigger: triggers.Trigger;

  constructor(scope: Construct, id: string, props: DeployTriggerProps) {
    super(scope, id);

    this.trigger = new triggers.Trigger(this, 'Trigger', {
      handler: props.handler,
      invocationType: triggers.InvocationType.EVENT,
      executeOnHandlerChange: true,
      executeAfter: [...props.executeAfter],
    });

    // currentVersion (the trigger's HandlerArn) makes CDK warn that permissions added to the function
    // do not cover its versions. None needs to: the schedule's permission is for the unqualified
    // function, which is what EventBridge invokes, and the version is invoked only by the provider,
    // whose own role allows it (<function ARN>:*).
    Validations.of(props.handler).acknowledge({
      id: 'Annotation::@aws-cdk/aws-lambda:addPermissionsToVersionOrAlias',
      reason:
        'Only the trigger provider invokes the version, through its identity policy; resource permissions (the schedule) are for the unqualified function, which is what they invoke.',
    });
  }
}
