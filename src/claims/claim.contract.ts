import { errors, int, obj, serviceChecked, uuid } from '../platform/contract';

export const claimContract = {
  claim: {
    summary: "Move an agent session's work (blueprints, architectures, runs, operations) to the account",
    // Listed with the account endpoints in the reference: it is part of the account API.
    tags: ['accounts'],
    body: serviceChecked(obj({ agent_token: { type: 'string', minLength: 1, maxLength: 200 } })),
    response: { 200: obj({ agent_session_id: uuid, claimed: obj({ blueprints: int, architectures: int, runs: int, operations: int }) }), ...errors(403) },
  },
};
