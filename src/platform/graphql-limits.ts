import { GraphQLError, getOperationAST, type DocumentNode, type GraphQLSchema, type ValidationContext, type ValidationRule } from 'graphql';
import depthLimit from 'graphql-depth-limit';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import type { Limits } from './config';
import { validationFailed } from './errors';

/** At most `max` aliases in one document (alias batching multiplies work behind one request). */
function aliasLimit(max: number): ValidationRule {
  return (context: ValidationContext) => {
    let count = 0;
    return {
      Field(node) {
        if (node.alias && ++count === max + 1)
          context.reportError(new GraphQLError(`The query uses more than ${max} aliases`, { nodes: [node], extensions: { code: 'VALIDATION_FAILED' } }));
      },
    };
  };
}

/** Depth and alias limits: static rules, applied to HTTP and WebSocket operations alike. */
export function limitRules(limits: Limits): ValidationRule[] {
  return [depthLimit(limits.queryDepthMax) as ValidationRule, aliasLimit(limits.queryAliasMax)];
}

/**
 * Every field costs 1; a field taking `first` or `limit` multiplies the cost of its children by the
 * page size asked for (or the default page size).
 */
function pagedEstimator(limits: Limits): ComplexityEstimator {
  return ({ args, field, childComplexity }) => {
    const size = typeof args.first === 'number' ? args.first : typeof args.limit === 'number' ? args.limit : null;
    const hasPage = field.args.some((a) => a.name === 'first' || a.name === 'limit');
    return 1 + childComplexity * (size ?? (hasPage ? limits.pageDefault : 1));
  };
}

/**
 * Throws VALIDATION_FAILED when the operation's estimated cost is over the limit, or when its variables do
 * not fit their declared types (the cost depends on them). An operation name that matches nothing is left
 * for the executor to report.
 */
export function assertQueryCost(
  limits: Limits,
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | undefined,
  operationName: string | undefined | null,
): number {
  if (!getOperationAST(document, operationName ?? undefined)) return 0;
  let cost: number;
  try {
    cost = getComplexity({ schema, query: document, variables, operationName: operationName ?? undefined, estimators: [pagedEstimator(limits)] });
  } catch (err) {
    // The estimator coerces the variables first; ones that do not fit their types are bad input, not a crash.
    if (err instanceof GraphQLError) throw validationFailed(err.message);
    throw err;
  }
  if (cost > limits.queryCostMax)
    throw validationFailed(`The query costs ${cost}; at most ${limits.queryCostMax} is allowed (ask for smaller pages or fewer fields)`, { cost, max: limits.queryCostMax });
  return cost;
}
