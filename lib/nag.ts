import {
  Stack,
  Validations,
  type IPolicyValidationContext,
  type IPolicyValidationPlugin,
  type PolicyValidationPluginReport,
} from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
// The function AwsSolutions-IAM5 itself writes its findings with: an acknowledgement built any other way
// drifts from the finding as soon as the CLI's region turns `<AWS::Region>` into a literal. It is not
// part of cdk-nag's public API (its index exports no such helper), so package.json pins cdk-nag to the
// exact version this path and behaviour were checked against; before raising it, run
// test/infra/nag.test.ts and test/infra/cli-synth.test.ts, which fail when the import moves or the
// finding ids it builds no longer match.
import { flattenCfnReference } from 'cdk-nag/lib/utils/flatten-cfn-reference.js';
import type { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';

/**
 * The id of the AwsSolutions-IAM5 finding for a wildcard `resource` of a policy in `scope`'s stack,
 * from the same value as the statement's ARN, so it matches in every region and partition.
 */
function wildcardResourceFinding(scope: IConstruct, resource: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenCfnReference(Stack.of(scope).resolve(resource))}]`;
}

/** Acknowledges, on `policy`, each wildcard resource of `statement`, for `reason`. */
export function acknowledgeWildcardResources(policy: IConstruct, statement: PolicyStatement, reason: string): void {
  const ids = statement.resources.map((resource) => wildcardResourceFinding(policy, resource)).filter((id) => id.includes('*'));
  if (ids.length === 0) throw new Error(`${policy.node.path}: no wildcard resource to acknowledge (${reason})`);
  Validations.of(policy).acknowledge(...ids.map((id) => ({ id, reason })));
}

/** Acknowledges every finding of `rule` whose detail (inside `[...]`) matches `finding`. */
export interface FindingPattern {
  readonly rule: string;
  readonly finding: RegExp;
  readonly reason: string;
}

/**
 * Wildcards that CDK grant helpers produce. Their findings embed the cross-stack reference
 * (`Resource::{"Fn::GetStackOutput":{…"OutputName":"PublishOutputFnGetAttTable…Arn…"}}/index/*`),
 * which changes with the stage, region and logical ids, and cdk-nag 3 acknowledges exact finding
 * ids only, so they are matched by pattern here.
 * The prefix must be a reference to one resource: no `*` in it, and no literal `arn:` (which
 * could be `table/*` or `bucket-*`).
 */
const GRANT_WILDCARD_PATTERNS: readonly FindingPattern[] = [
  {
    rule: 'AwsSolutions-IAM5',
    finding: /^Resource::(?!.*arn:)[^*]+\/index\/\*$/,
    reason: 'table.grant() covers the indexes of that one table (<table ARN>/index/*); they are all ours and every query needs them.',
  },
  {
    rule: 'AwsSolutions-IAM5',
    finding: /^Resource::(?!.*arn:)[^*]+\/\*$/,
    reason: 'Object actions are scoped to the objects of that one bucket (<bucket ARN>/*); object keys are generated at run time.',
  },
];

/**
 * The AwsSolutions pack, plus pattern acknowledgments (what `appliesTo` regexes did in cdk-nag 2).
 * Runs the pack, acknowledges the matching findings on their constructs through the standard
 * Validations API, then runs the pack again and returns that second report. The findings only
 * exist once cross-stack references are resolved, i.e. during validation, after the assembly
 * metadata is written: unlike the acknowledgments made in the stacks, these are recorded here,
 * in the patterns and their reasons, not in cdk.out.
 */
export class HookgateNagChecks implements IPolicyValidationPlugin {
  readonly name: string;
  readonly version: string | undefined;
  private readonly checks: AwsSolutionsChecks;

  constructor(
    scope: IConstruct,
    private readonly patterns: readonly FindingPattern[] = GRANT_WILDCARD_PATTERNS,
  ) {
    this.checks = new AwsSolutionsChecks(scope);
    this.name = this.checks.name;
    this.version = this.checks.version;
  }

  validate(context: IPolicyValidationContext): PolicyValidationPluginReport {
    const first = this.checks.validate(context);
    let acknowledged = 0;
    for (const violation of first.violations) {
      const pattern = this.matchingPattern(violation.ruleName);
      if (!pattern) continue;
      for (const resource of violation.violatingResources) {
        const construct = resource.constructPath && findByPath(context.appConstruct, resource.constructPath);
        if (!construct) continue;
        Validations.of(construct).acknowledge({ id: violation.ruleName, reason: pattern.reason });
        acknowledged += 1;
      }
    }
    return acknowledged > 0 ? this.checks.validate(context) : first;
  }

  private matchingPattern(ruleName: string): FindingPattern | undefined {
    const match = /^([^[]+)\[(.*)\]$/s.exec(ruleName);
    if (!match) return undefined;
    const [, rule, finding] = match;
    return this.patterns.find((p) => p.rule === rule && finding !== undefined && p.finding.test(finding));
  }
}

function findByPath(root: IConstruct, path: string): IConstruct | undefined {
  const rootPath = root.node.path;
  const relative = rootPath && path.startsWith(`${rootPath}/`) ? path.slice(rootPath.length + 1) : path;
  let current: IConstruct | undefined = root;
  for (const id of relative.split('/')) {
    current = current?.node.tryFindChild(id);
  }
  return current;
}
