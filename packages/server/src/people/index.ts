export { PEOPLE_API, PEOPLE_CALLS } from './people-api.ts';
