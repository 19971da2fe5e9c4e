// Roles in the back office: the Team page (/control/team), the header's tenant switch, and the
// 403 page of a role too low. Which route needs which role is route-roles.ts's, not this folder's.

export { invitationRoutes } from './invitations.ts';
export { joinRoutes } from './join.ts';
export { refuseForRole } from './refuse.ts';
export { teamRoutes, tenantSwitchRoutes } from './routes.ts';
export { ROLE_MESSAGES, type RoleMessages } from './words.ts';
