// The outbox benchmark's spec: claims created and approved by a clerk, with point 7 declaring one
// call to another system and one notification on each create and approval (`with`), or nothing
// (`without`). Everything else is the same, so the difference is the outbox's.
const BASE = `# Specification: Claims bench

## 1. What the product does and for whom

Claims, created and approved.

## 2. Screens and routes

Not shown.

## 3. Entities and their fields

### Claim

| field  | type    | rules                      |
| ------ | ------- | -------------------------- |
| title  | text    | required, 3..80 characters |
| amount | decimal | required, at least 0       |
| owner  | User    | default me                 |

## 4. States and transitions

### Claim

| transition | from  | to       | who   |
| ---------- | ----- | -------- | ----- |
| open       | (new) | new      | clerk |
| approve    | new   | approved | clerk |

## 5. Validation rules

Not shown.

## 6. Roles and permissions

| role  | Claim |
| ----- | ----- |
| clerk | all   |

## 7. The calls it makes

POINT_7

## 8. The error catalogue

Not shown.

## 9. Business constants and limits

| name                  | value   |
| --------------------- | ------- |
| RATE_LIMIT_PER_MINUTE | 1000000 |
`;

const DECLARED = `### Notifications

| on             | to    | subject              | text                         |
| -------------- | ----- | -------------------- | ---------------------------- |
| create Claim   | owner | New claim: {title}   | {title} for {amount}.        |
| Claim: approve | owner | Approved: {title}    | {title} ({amount}) approved. |

### Calls to other systems

| on             | url          | body                        | secret          |
| -------------- | ------------ | --------------------------- | --------------- |
| create Claim   | env HOOK_URL | Claim (id, title, amount)   | env HOOK_SECRET |
| Claim: approve | env HOOK_URL | Claim (id, amount, state)   | env HOOK_SECRET |`;

export const OUTBOX_SPEC_WITH = BASE.replace('POINT_7', DECLARED);
export const OUTBOX_SPEC_WITHOUT = BASE.replace('POINT_7', 'Not shown.');
