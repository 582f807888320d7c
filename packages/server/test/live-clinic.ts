import { readFileSync } from 'node:fs';
import { replaceOnce } from './helpers.ts';

/**
 * The clinic (fixtures/clinic.md) as the live-update tests use it: doctors read their own
 * appointments and update their notes, patients read doctors and their own appointments but not
 * the doctor's notes, and an admin books and manages people (deactivates, changes roles).
 */
export const LIVE_CLINIC = replaceOnce(
  readFileSync(new URL('./fixtures/clinic.md', import.meta.url), 'utf8'),
  /## 6\. Roles and permissions\n[\s\S]*?(?=\n## 7\.)/,
  () => `## 6. Roles and permissions

| role    | Doctor | Patient              | Appointment                                                                  | people |
| ------- | ------ | -------------------- | ---------------------------------------------------------------------------- | ------ |
| admin   | all    | all                  | all                                                                          | manage |
| doctor  | read   | read                 | read own via doctor.account, update own via doctor.account (notes)          |        |
| patient | read   | read own via account | create, read own via patient.account except (notes)                          |        |
`,
);
