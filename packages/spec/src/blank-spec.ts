/** The spec `ninepoint new` writes: a product whose nine points are all not shown. */
export function blankSpec(name = 'New product'): string {
  return `# Specification: ${name}

## 1. What the product does and for whom
Not shown.

## 2. Screens and routes
Not shown.

## 3. Entities and their fields
Not shown.

## 4. States and transitions
Not shown.

## 5. Validation rules
Not shown.

## 6. Roles and permissions
Not shown.

## 7. The calls it makes
Not shown.

## 8. The error catalogue
Not shown.

## 9. Business constants and limits
Not shown.
`;
}
