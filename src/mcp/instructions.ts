/**
 * What the server tells an agent in `initialize` (MCP `instructions`): the flows that take more than one
 * call. Tool descriptions say what each tool does; this says in which order to use them.
 */
export const mcpInstructions = `Blueprint Workshop stores build plans ("blueprints": modules, ordered steps, configuration, design system), lets you fork, breed and transform them with 25 tools, and hands them out step by step for execution.

Getting a session
- Every tool needs a bearer token. A standard MCP client signs in through OAuth (this server is its own authorization server: discovery starts at /.well-known/oauth-protected-resource). Without a person to sign in, an agent provisions its own session with POST /api/agent/sessions (no token) and sends "Authorization: Bearer <token>".
- A read-scope token may call read-only tools only.

Finding blueprints
- registry_search (q, tags, sort) and registry_trending list public blueprints; blueprint_get reads one (id or slug) with its full plan; blueprint_lineage, blueprint_forks and blueprint_compare show its family.

Creating a blueprint (the create tool has exactly 5 steps)
1. tool_operation_start {tool_type: "create", params: {description, language?, framework?}} answers step 1: a prompt, a submission_schema and a single-use token.
2. tool_operation_submit {operation_id, token, submission} for each step, always with the token of the latest answer:
   step 1 {"modules": [{key, name, summary, kind, depends_on: []}]}
   step 2 {"steps": [{key, module_key, title, instructions, acceptance: []}]}
   step 3 {"configuration": {...}}
   step 4 {"design_system": {...}}
   step 5 {"name", "description", "tags": [], "visibility": "public" | "private"}
3. When done is true, result.blueprint_ids holds the new blueprint. A replayed token answers STALE_STEP_TOKEN and changes nothing; tool_operation_status shows where an operation stands.
Every other tool (breed, splice, transmute, lint, ...) runs the same way: start with source_blueprint_ids and params, submit each step's schema until done.

Forking
- blueprint_fork {blueprint_id} makes your own copy with forked_from set. blueprint_compare {blueprint_id} shows a fork ahead of or behind its parent; upstream_merge (a tool operation) pulls the parent's changes in.

Executing
1. blueprint_execute_start {blueprint_id} answers run_id, a system_prompt, total_steps, stage_tokens, step 1's content and next_token. That next_token is step 1's own token (stage_tokens[0]), not step 2's.
2. Call blueprint_execute_step {blueprint_id, n: 1, token: next_token}: it records step 1 as reached and answers step 1 again, now with the next_token that opens step 2. Carry out step 1.
3. Then call blueprint_execute_step {blueprint_id, n: n + 1, token: next_token}, each time with the latest answer's next_token, and carry out the step it answers.
4. Stop when dn is true: that step was the last and the run is completed (a successful run). If you cannot finish, execution_report {run_id, status: "failed", notes} (or "abandoned"); "completed" is refused (CONFLICT) for a run that has not reached its last step.

Files for coding agents
- blueprint_export {blueprint_id, format: "agents-md" | "claude-md" | "cursor-rules" | "json"} answers the files; blueprint_import {format, files} makes them a blueprint of yours (a fork when their front matter names one you may read). Resources blueprint://{blueprint}/AGENTS.md hold the same AGENTS.md; the prompts execute_blueprint and propose_upstream give the first calls of those flows.

Errors
- A failed call answers isError with {"error": {"code", "message", "details"}}: VALIDATION_FAILED (details.issues names each bad argument), UNAUTHENTICATED, FORBIDDEN, NOT_FOUND (also for private things you may not see), CONFLICT, STALE_STEP_TOKEN, RATE_LIMITED.`;
