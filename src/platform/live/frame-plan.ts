import {
  Kind,
  getNamedType,
  isLeafType,
  isNonNullType,
  isObjectType,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';

/**
 * The planning half of the direct path's frame encoders (`FrameEncoder`): a subscription selection of
 * plain fields (fragments on the same type are spread in; no directives, arguments or abstract types
 * below the root field) becomes a plan that writes a `next` payload as JSON straight from an event,
 * without executing the document. The area says which fields it knows and where each reads its value
 * (`Readers`); a selection with any other field gets no plan (the document runs the normal way).
 */

/** Reads one field's value from one level of the event (the area's own shape for that level). */
export type Reader = (level: object) => unknown;

/** The fields the direct path knows, per GraphQL type name. */
export type Readers = Record<string, Record<string, Reader>>;

type FragmentMap = Record<string, FragmentDefinitionNode>;

export interface FieldPlan {
  /** `"responseKey":` */
  keyJson: string;
  read: Reader | null;
  /** The type name, for `__typename`. */
  typename?: string;
  serialize?: (value: unknown) => unknown;
  nonNull: boolean;
  object?: FieldPlan[];
}

/** Why an event cannot be encoded here: it takes the normal path instead. */
export const FALL_BACK = Symbol('fall back');

/**
 * The fields of a selection set with fragments spread in (fragments on this type, without directives);
 * null when something else is there. A response key selected twice is kept once, in its first place, as
 * GraphQL merges it; twice with a sub-selection is left to graphql-js (it merges the sub-selections).
 */
function fieldsOf(type: GraphQLObjectType, selectionSet: SelectionSetNode, fragments: FragmentMap, out: Map<string, FieldNode>): boolean {
  for (const selection of selectionSet.selections) {
    if (selection.directives?.length) return false;
    if (selection.kind === Kind.FIELD) {
      const key = selection.alias?.value ?? selection.name.value;
      const seen = out.get(key);
      if (!seen) out.set(key, selection);
      else if (seen.name.value !== selection.name.value || seen.selectionSet || selection.selectionSet) return false;
      continue;
    }
    const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments[selection.name.value] : selection;
    if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type.name)) return false;
    if (fragment.directives?.length || !fieldsOf(type, fragment.selectionSet, fragments, out)) return false;
  }
  return true;
}

/** The plan of one selection set, or null when it selects anything `readers` does not know. */
export function planOf(readers: Readers, type: GraphQLObjectType, selectionSet: SelectionSetNode | undefined, fragments: FragmentMap): FieldPlan[] | null {
  const known = readers[type.name];
  const fields = new Map<string, FieldNode>();
  if (!known || !selectionSet || !fieldsOf(type, selectionSet, fragments, fields)) return null;
  const plans: FieldPlan[] = [];
  for (const [key, selection] of fields) {
    if (selection.arguments?.length) return null;
    const keyJson = `${JSON.stringify(key)}:`;
    if (selection.name.value === '__typename') {
      plans.push({ keyJson, read: null, typename: type.name, nonNull: true });
      continue;
    }
    const read = known[selection.name.value];
    const field = type.getFields()[selection.name.value];
    if (!read || !field) return null;
    const named = getNamedType(field.type);
    const nonNull = isNonNullType(field.type);
    if (isLeafType(named)) {
      if (selection.selectionSet) return null;
      plans.push({ keyJson, read, nonNull, serialize: (value) => named.serialize(value) });
    } else if (isObjectType(named)) {
      const object = planOf(readers, named, selection.selectionSet, fragments);
      if (!object) return null;
      plans.push({ keyJson, read, nonNull, object });
    } else return null;
  }
  return plans;
}

/**
 * The root field's plan for a subscription (one field node, no directives) and the payload's opening
 * (`{"data":{"<response key>":{`), or null: the selection runs the normal way.
 */
export function rootPlanOf(readers: Readers, info: GraphQLResolveInfo): { prefix: string; plans: FieldPlan[] } | null {
  const node = info.fieldNodes.length === 1 ? info.fieldNodes[0]! : null;
  if (!node || node.directives?.length) return null;
  const type = getNamedType(info.returnType);
  const plans = isObjectType(type) ? planOf(readers, type, node.selectionSet, info.fragments) : null;
  return plans && { prefix: `{"data":{${JSON.stringify(node.alias?.value ?? node.name.value)}:{`, plans };
}

/** One field's value as JSON. */
export function encodeValue(plan: FieldPlan, level: object): string | typeof FALL_BACK {
  if (plan.typename !== undefined) return JSON.stringify(plan.typename);
  const value = plan.read!(level);
  if (value === null || value === undefined) return plan.nonNull ? FALL_BACK : 'null';
  if (plan.object) return encodeObject(plan.object, value as object);
  return JSON.stringify(plan.serialize!(value));
}

export function encodeObject(plans: FieldPlan[], level: object): string | typeof FALL_BACK {
  let out = '{';
  for (let i = 0; i < plans.length; i++) {
    const plan = plans[i]!;
    const value = encodeValue(plan, level);
    if (value === FALL_BACK) return FALL_BACK;
    out += (i > 0 ? ',' : '') + plan.keyJson + value;
  }
  return out + '}';
}
