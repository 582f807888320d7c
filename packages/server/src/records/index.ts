export { RECORDS_API } from './records-api.ts';
