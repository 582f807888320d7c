/** A spec with file and image fields: one file with kinds, several images, one hidden from auditors. */
export const CLAIMS = `# Specification: Claims

## 3. Entities and their fields

### Claim

| field   | type              | rules                             |
| ------- | ----------------- | --------------------------------- |
| title   | text              | required                          |
| amount  | decimal(2)        | required                          |
| receipt | file              | at most 64 KB, pdf, png, jpeg     |
| photos  | images, at most 3 | at most 64 KB                     |
| scan    | file              | at most 64 KB                     |

## 5. Validation rules

| rule                | applies to | condition                         | error            |
| ------------------- | ---------- | --------------------------------- | ---------------- |
| receipt above limit | Claim      | amount <= 25 \\|\\| has(receipt)  | RECEIPT_REQUIRED |

## 6. Roles and permissions

| role    | Claim                                        |
| ------- | -------------------------------------------- |
| clerk   | create, read own, update own, delete own     |
| auditor | read except (scan)                           |

## 8. The error catalogue

| code             | status | message                                  |
| ---------------- | ------ | ---------------------------------------- |
| RECEIPT_REQUIRED | 422    | Claims over 25 need their receipt.       |
`;
