/** Team roles that may edit a team's blueprint (its plan, details and proposals), and those that may also delete it (the API's rules). */
export const EDITOR_ROLES = ['OWNER', 'ADMIN', 'MEMBER'];
export const MANAGER_ROLES = ['OWNER', 'ADMIN'];
