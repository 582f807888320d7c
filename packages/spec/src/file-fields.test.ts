import { describe, expect, it } from 'vitest';
import { checkSpec } from './check.ts';
import { explainedType } from './field-kinds.ts';

/** A spec whose entity Claim has one field `attachment` of `type` with `rules`. */
function claim(type: string, rules: string) {
  const checked = checkSpec(`# Specification: Files

## 3. Entities and their fields

### Claim

| field      | type    | rules    |
| ---------- | ------- | -------- |
| title      | text    | required |
| attachment | ${type} | ${rules} |
`);
  const field = checked.model.entities[0]?.fields.find((f) => f.name === 'attachment');
  return {
    field,
    errors: checked.diagnostics
      .filter((d) => d.severity === 'error')
      .map((d) => ({ code: d.code, message: d.message, hint: d.hint, expected: d.expected })),
  };
}

describe('file and image fields', () => {
  it('reads one file with its size and kinds, required', () => {
    const { field, errors } = claim('file', 'required, at most 10 MB, pdf, png, jpg');
    expect(errors).toEqual([]);
    expect(field?.required).toBe(true);
    expect(field?.type).toEqual({
      kind: 'file',
      image: false,
      maxFiles: 1,
      maxBytes: 10 * 1024 * 1024,
      kinds: ['pdf', 'png', 'jpeg'],
    });
    expect(explainedType(field?.type ?? { kind: 'text' })).toBe('a file (pdf, png or jpeg), at most 10 MB');
  });

  it('reads several files, in the type cell or the rules', () => {
    expect(claim('files', 'at most 5 files').field?.type).toMatchObject({ maxFiles: 5, image: false });
    expect(claim('file, at most 5', '').field?.type).toMatchObject({ maxFiles: 5 });
    expect(claim('images', '').field?.type).toMatchObject({
      image: true,
      maxFiles: 100,
      kinds: ['png', 'jpeg', 'gif', 'webp', 'avif'],
      maxBytes: 25 * 1024 * 1024,
    });
    expect(claim('image', 'at most 512 KB, png').field?.type).toMatchObject({ maxBytes: 512 * 1024, kinds: ['png'] });
  });

  it('refuses a size without a known unit, with the sizes it may have meant', () => {
    const { errors } = claim('file', 'at most 10 megs');
    expect(errors).toEqual([
      expect.objectContaining({ code: 'invalid-file-limit', hint: expect.stringContaining('KB, MB or GB') }),
    ]);
  });

  it('refuses a size of nothing or above 5 GB', () => {
    expect(claim('file', 'at most 0 MB').errors.map((e) => e.code)).toEqual(['invalid-file-limit']);
    expect(claim('file', 'at most 6 GB').errors[0]?.message).toContain('not 1 byte..5 GB');
  });

  it('refuses a kind the bytes cannot tell, suggesting the nearest', () => {
    const { errors } = claim('file', 'pdf, pnf');
    expect(errors).toEqual([
      expect.objectContaining({
        code: 'invalid-file-limit',
        expected: expect.arrayContaining(['png']),
        hint: expect.stringContaining('leave them out to accept any file'),
      }),
    ]);
  });

  it('refuses a kind that is not an image on an image field', () => {
    expect(claim('image', 'pdf').errors[0]).toMatchObject({
      code: 'invalid-file-limit',
      message: 'Field Claim.attachment is an image field, and pdf is not an image.',
    });
  });

  it('refuses a count of files on a field that holds one, and other rules', () => {
    expect(claim('file', 'at most 3 files').errors[0]).toMatchObject({
      code: 'invalid-file-limit',
      hint: 'Make its type "files" to hold several.',
    });
    expect(claim('file', 'unique').errors[0]?.code).toBe('invalid-field-rule');
    expect(claim('files, at most 500', '').errors[0]?.code).toBe('invalid-file-limit');
  });

  it('keeps a photo’s location only when the rules say so, and not where no kind carries one', () => {
    expect(claim('image', 'at most 2 MB').field?.type).not.toHaveProperty('keepsLocation');
    const kept = claim('images', 'keeps location, jpeg');
    expect(kept.errors).toEqual([]);
    expect(kept.field?.type).toMatchObject({ kind: 'file', image: true, keepsLocation: true, kinds: ['jpeg'] });
    expect(claim('file', 'keep  location').field?.type).toMatchObject({ keepsLocation: true });
    const pdfOnly = claim('file', 'pdf, keeps location');
    expect(pdfOnly.errors).toEqual([
      {
        code: 'invalid-file-limit',
        message: 'Field Claim.attachment accepts only pdf, which carry no photo location to keep.',
        hint: 'Remove "keeps location", or accept jpeg, png, webp or avif.',
        expected: [],
      },
    ]);
    expect(pdfOnly.field?.type).not.toHaveProperty('keepsLocation');
  });

  it('lets a rule ask whether a file is there', () => {
    const checked = checkSpec(`# Specification: Files

## 3. Entities and their fields

### Claim

| field   | type    | rules |
| ------- | ------- | ----- |
| amount  | decimal |       |
| receipt | file    | pdf   |

## 5. Validation rules

| rule          | applies to | condition                   | error            |
| ------------- | ---------- | --------------------------- | ---------------- |
| needs receipt | Claim      | amount <= 25 \\|\\| has(receipt) | RECEIPT_REQUIRED |

## 8. The error catalogue

| code             | status | message              |
| ---------------- | ------ | -------------------- |
| RECEIPT_REQUIRED | 422    | A receipt is needed. |
`);
    expect(checked.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });
});
