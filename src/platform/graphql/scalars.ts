export { GraphQLJSON as JSONScalar, GraphQLJSONObject as JSONObjectScalar } from 'graphql-scalars';
