import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { asRuntime, beforeFunctionCalls, type SdkClient } from './sdk-hooks';

/**
 * DynamoDB's `ReturnValuesOnConditionCheckFailure: ALL_OLD`, which dynalite ignores: a conditional
 * write refused with it carries the item as the condition found it (`Item`, marshalled). Here the item
 * is read right after the refusal, consistently, as the runtime's own call (not metered, throttled or
 * checked against the function's role: AWS returns it at no cost); a write that lands in between is
 * the one difference, and the store treats what it sees as a hint it writes under a condition anyway.
 */
export function returnItemsOnConditionFailure(): void {
  const added = new WeakSet<object>();
  beforeFunctionCalls('condition-returns', (client: SdkClient) => {
    if (client.config.serviceId !== 'DynamoDB' || added.has(client.middlewareStack)) return;
    added.add(client.middlewareStack);
    const send = (command: GetItemCommand) => (client as unknown as { send(c: GetItemCommand): Promise<{ Item?: unknown }> }).send(command);
    client.middlewareStack.add(
      (next: (args: { input: Record<string, unknown> }) => Promise<unknown>) => async (args: { input: Record<string, unknown> }) => {
        try {
          return await next(args);
        } catch (error) {
          const { input } = args;
          if (input.ReturnValuesOnConditionCheckFailure !== 'ALL_OLD' || (error as Error).name !== 'ConditionalCheckFailedException') throw error;
          const found = await asRuntime(() => send(new GetItemCommand({ TableName: input.TableName as string, Key: input.Key as GetItemCommand['input']['Key'], ConsistentRead: true })));
          if (found.Item) Object.assign(error as object, { Item: found.Item });
          throw error;
        }
      },
      { step: 'deserialize', name: 'localConditionReturns', priority: 'high' },
    );
  });
}
