import { Anchor } from '@mantine/core';
import { assertNever, type Field, type Model, USER_ENTITY } from '@ninepoint/spec';
import { Link } from 'react-router';
import { useMe } from '../api/session.ts';
import { choiceLabel, refusal, routeTo, screenFor } from '../app/screens.ts';
import { useRecord } from '../records/api.ts';
import { fallbackTitle, useRecordTitle } from '../records/title.ts';
import { useUserName } from '../records/users.ts';
import { formatDate, formatDateTime, formatNumber, safeHref } from './display.ts';
import { FileList } from './files/FileList.tsx';

/** A field's value for reading: dates in words, numbers with their decimals, references by name. */
export function FieldValue({ model, field, value }: { model: Model; field: Field; value: unknown }) {
  if (value === null || value === undefined || value === '') {
    return <span style={{ color: 'var(--mantine-color-dimmed)' }}>Not set</span>;
  }
  const t = field.type;
  switch (t.kind) {
    case 'reference':
      return t.entity === USER_ENTITY ? (
        <UserName id={String(value)} />
      ) : (
        <RecordLink model={model} entity={t.entity} id={String(value)} />
      );
    case 'boolean':
      return <>{value ? 'Yes' : 'No'}</>;
    case 'date':
      return <time dateTime={String(value)}>{formatDate(String(value))}</time>;
    case 'datetime':
      return <time dateTime={String(value)}>{formatDateTime(String(value))}</time>;
    case 'integer':
    case 'decimal':
      return <>{typeof value === 'number' ? formatNumber(value, field) : String(value)}</>;
    case 'email':
      return (
        <Anchor inherit href={`mailto:${String(value)}`}>
          {String(value)}
        </Anchor>
      );
    case 'url': {
      const href = safeHref(String(value));
      return href ? (
        <Anchor inherit href={href} target="_blank" rel="noopener noreferrer" style={{ wordBreak: 'break-all' }}>
          {String(value)}
        </Anchor>
      ) : (
        String(value)
      );
    }
    case 'choice':
      return <>{choiceLabel(String(value))}</>;
    case 'longText':
      return <span style={{ whiteSpace: 'pre-wrap' }}>{String(value)}</span>;
    case 'text':
      return <>{String(value)}</>;
    case 'file':
      return <FileList type={t} value={String(value)} />;
    default:
      return assertNever(t);
  }
}

/** A user by name; the signed-in user is marked "(you)". */
export function UserName({ id }: { id: string }) {
  const user = useUserName(id);
  return (
    <span title={user.known ? undefined : `User id ${id}`}>
      {user.name}
      {user.you && <span style={{ color: 'var(--mantine-color-dimmed)' }}> (you)</span>}
    </span>
  );
}

/** A referenced record by its title, linked to its detail screen when the user may open it. */
export function RecordLink({ model, entity, id }: { model: Model; entity: string; id: string }) {
  const me = useMe();
  const record = useRecord(model, entity, id);
  const title = useRecordTitle(model, entity, record.data?.body);
  const shown = record.data ? title : record.isError ? fallbackTitle(entity, id) : `${entity} …`;
  const screen = screenFor(model, entity, 'detail', true);
  const mayOpen = screen && me.data && refusal(screen, me.data) === null;
  if (!screen || !mayOpen || record.isError) return <span>{shown}</span>;
  const to = routeTo(screen, { [screen.params[0] ?? 'id']: id });
  return (
    <Anchor inherit component={Link} to={to}>
      {shown}
    </Anchor>
  );
}
