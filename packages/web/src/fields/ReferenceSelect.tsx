import { Select, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { isTextLike, type Model, USER_ENTITY } from '@ninepoint/spec';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../api/client.ts';
import { useMe } from '../api/session.ts';
import { problemOf, useRecord } from '../records/api.ts';
import { callFor, entityNamed, type Page, pathOf } from '../records/calls.ts';
import { collectionLabel } from '../records/labels.ts';
import { plainTitle, useUserNamer } from '../records/title.ts';
import { unnamedUser, useUserDirectory, useUserSearch } from '../records/users.ts';

/** What every input of a form gets besides its value. */
export interface PickerProps {
  id: string;
  label: string;
  description?: string | undefined;
  required: boolean;
  disabled?: boolean;
  error?: string | undefined;
  value: string;
  onChange: (value: string) => void;
}

/** Options of a search: shown as the server ordered them, never filtered again by the browser. */
const asServerSent = ({ options }: { options: unknown[] }) => options as never;
const SEARCH_DEBOUNCE_MS = 250;
const OPTIONS = 20;

/** A reference to a record of another entity, or to a User: a searchable select. */
export function ReferenceSelect({ model, entity, ...props }: PickerProps & { model: Model; entity: string }) {
  return entity === USER_ENTITY ? <UserSelect {...props} /> : <RecordSelect model={model} entity={entity} {...props} />;
}

/**
 * Records of an entity, searched with the list call's `q` when the entity has text to search, else
 * its most recent records; the chosen record is always among the options, by its title.
 */
function RecordSelect({ model, entity, ...props }: PickerProps & { model: Model; entity: string }) {
  const target = entityNamed(model, entity);
  const list = callFor(model, entity, 'list');
  const searchable = (target?.fields ?? []).some((f) => isTextLike(f.type));
  const [search, setSearch] = useState('');
  const [typed] = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const selected = useRecord(model, entity, props.value || null);
  const users = useUserNamer();
  const selectedTitle = selected.data && target ? plainTitle(target, selected.data.body, users) : null;
  // The select shows the chosen option's title in its search box: that is not a search.
  const query = searchable && typed !== selectedTitle ? typed.trim() : '';
  const options = useQuery({
    queryKey: ['options', entity, query],
    queryFn: async () => {
      const params = new URLSearchParams({ limit: String(OPTIONS), sort: '-created_at' });
      if (query !== '') params.set('q', query);
      return (await api<Page>('GET', `${pathOf(list as NonNullable<typeof list>)}?${params}`)).body.items;
    },
    enabled: Boolean(list && target),
    placeholderData: (previous) => previous,
    staleTime: 30_000,
  });
  if (!list || !target) {
    // No list call to pick from: the id must be typed.
    return (
      <TextInput
        {...common(props)}
        description={props.description ?? `The id of a ${entity}.`}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      />
    );
  }
  return (
    <SearchedSelect
      {...props}
      options={(options.data ?? []).map((r) => ({ value: r.id, label: plainTitle(target, r, users) }))}
      chosenLabel={selectedTitle ?? `${entity} …${props.value.slice(-4)}`}
      search={search}
      onSearchChange={setSearch}
      state={options}
      placeholder={searchable ? `Search ${collectionLabel(entity).toLowerCase()}…` : `Pick a ${entity.toLowerCase()}`}
      noMatch={`No ${entity.toLowerCase()} matches`}
    />
  );
}

/** A User, searched by name in the user directory (which shows no one's email but one's own). */
function UserSelect(props: PickerProps) {
  const me = useMe();
  const directory = useUserDirectory();
  const [search, setSearch] = useState('');
  const [typed] = useDebouncedValue(search, SEARCH_DEBOUNCE_MS);
  const chosen = props.value
    ? ((me.data?.user?.id === props.value ? me.data.user : directory.data?.get(props.value)) ?? null)
    : null;
  const chosenLabel = chosen ? userLabel(chosen) : null;
  const query = typed === chosenLabel ? '' : typed.trim();
  const found = useUserSearch(query, Boolean(me.data?.user));
  return (
    <SearchedSelect
      {...props}
      options={(found.data ?? []).map((u) => ({ value: u.id, label: userLabel(u) }))}
      chosenLabel={chosenLabel ?? unnamedUser(props.value)}
      search={search}
      onSearchChange={setSearch}
      state={found}
      placeholder="Search by name…"
      noMatch="Nobody matches"
    />
  );
}

/**
 * A select whose options the server found for what was typed, in its order; the chosen value is
 * always among them (by `chosenLabel` when the search did not bring it back).
 */
function SearchedSelect({
  options,
  chosenLabel,
  search,
  onSearchChange,
  state,
  placeholder,
  noMatch,
  ...props
}: PickerProps & {
  options: { value: string; label: string }[];
  chosenLabel: string;
  search: string;
  onSearchChange: (search: string) => void;
  state: { isFetching: boolean; isError: boolean; error: unknown };
  placeholder: string;
  noMatch: string;
}) {
  const data = [...options];
  if (props.value && !data.some((o) => o.value === props.value)) {
    data.unshift({ value: props.value, label: chosenLabel });
  }
  const failed = state.isError ? problemOf(state.error).message : undefined;
  return (
    <Select
      {...common(props)}
      data={uniqueLabels(data)}
      value={props.value || null}
      onChange={(value) => props.onChange(value ?? '')}
      searchable
      searchValue={search}
      onSearchChange={onSearchChange}
      filter={asServerSent}
      openOnFocus={false}
      clearable={!props.required}
      allowDeselect={!props.required}
      placeholder={placeholder}
      nothingFoundMessage={state.isFetching ? 'Searching…' : failed ? `Could not load: ${failed}` : noMatch}
      comboboxProps={{ withinPortal: true }}
    />
  );
}

function userLabel(user: { name: string; email?: string | undefined }): string {
  if (!user.email) return user.name;
  return user.name && user.name !== user.email ? `${user.name} (${user.email})` : user.email;
}

function common(props: PickerProps) {
  return {
    id: props.id,
    label: props.label,
    description: props.description,
    required: props.required,
    disabled: props.disabled,
    error: props.error,
    value: props.value,
  };
}

/** Two records with one title would be one option to a reader: tell them apart by their ids. */
function uniqueLabels(data: { value: string; label: string }[]): { value: string; label: string }[] {
  const counts = new Map<string, number>();
  for (const o of data) counts.set(o.label, (counts.get(o.label) ?? 0) + 1);
  const seen = new Set<string>();
  return data
    .filter((o) => !seen.has(o.value) && seen.add(o.value))
    .map((o) => ((counts.get(o.label) ?? 0) > 1 ? { ...o, label: `${o.label} (…${o.value.slice(-4)})` } : o));
}
