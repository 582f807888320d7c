import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import { summaryPath } from './calls.ts';

const ENTITIES = `## 3. Entities and their fields

### Ticket

| field | type | rules |
|---|---|---|
| title | text | required |

### Note

| field | type | rules |
|---|---|---|
| body | text | required |
`;

const spec = (screens: string, calls: string) =>
  checkSpec(
    `# Specification: Desk\n\n## 2. Screens and routes\n\n${screens}\n\n${ENTITIES}\n## 7. The calls it makes\n\n${calls}\n`,
  ).model;

describe("an entity's summary call, as the server serves it", () => {
  it('is beside every list call when the calls are derived', () => {
    const model = spec('Not shown.', 'Not shown.');
    expect(summaryPath(model, 'Ticket')).toBe('/api/tickets/summary');
    expect(summaryPath(model, 'Note')).toBe('/api/notes/summary');
  });

  it('is only beside the lists a dashboard counts when point 7 declares the calls', () => {
    const model = spec(
      `| route | screen | shows | who |
|---|---|---|---|
| /overview | dashboard | Ticket: count | |`,
      `| method | path | payload | does |
|---|---|---|---|
| GET | /api/tickets | | list Ticket |
| GET | /api/notes | | list Note |`,
    );
    expect(summaryPath(model, 'Ticket')).toBe('/api/tickets/summary');
    expect(summaryPath(model, 'Note')).toBeNull();
  });
});
