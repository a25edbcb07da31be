// The face of the team-members module: what other modules, the workers and the composition may use. The rest is private.
export { ListTeamMembersQuery, TeamMemberSchema } from './team-members.schemas.js';
export { getTeamMember, listTeamMembers, presentTeamMember } from './team-members.service.js';
export { type BookingMember, findBookingMembers, findMembers } from './team-members.repository.js';
