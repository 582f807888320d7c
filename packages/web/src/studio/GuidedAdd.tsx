import {
  Button,
  Checkbox,
  ColorSwatch,
  Group,
  Menu,
  Modal,
  MultiSelect,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { CHOICE_COLOURS, type ChoiceColour, choiceColour, FILE_DEFAULT_MAX_BYTES, type Model } from '@ninepoint/spec';
import { type FormEvent, type ReactNode, useState } from 'react';
import {
  choiceValues,
  FIELD_TYPES,
  type FieldForm,
  type FieldTypeChoice,
  fieldInsert,
  fieldNameProblem,
  fileKinds,
  isFileType,
  kindsCarryLocation,
  type RowInsert,
  roleInsert,
  stateInsert,
  transitionInsert,
} from './guided.ts';

type What = 'field' | 'state' | 'transition' | 'role';

export interface GuidedAddProps {
  /** The checked text and its model: the forms are offered only while the editor holds that text. */
  source: string;
  model: Model;
  current: boolean;
  /** Writes the row into the editor. */
  onInsert(row: RowInsert): void;
}

const TITLES: Record<What, string> = {
  field: 'Add a field',
  state: 'Add a state',
  transition: 'Add a transition',
  role: 'Add a role',
};

/**
 * "Add…": guided forms for a field, a state, a transition or a role. Each writes a row of
 * Markdown into the table it belongs in; the checker then reads it like any typed text, so the
 * form asks for what the table says and leaves the checking to the checker.
 */
export function GuidedAdd({ source, model, current, onInsert }: GuidedAddProps) {
  const [open, setOpen] = useState<What | null>(null);
  const close = () => setOpen(null);
  const done = (row: RowInsert | null) => {
    if (!row) return 'The spec has no table to add this to yet: write its first row by hand.';
    onInsert(row);
    close();
    return null;
  };
  const machines = model.machines.filter((m) => m.transitions.length > 0);
  return (
    <>
      <Menu position="bottom-end" withinPortal>
        <Menu.Target>
          <Button variant="default" disabled={!current || model.entities.length === 0}>
            Add…
          </Button>
        </Menu.Target>
        <Menu.Dropdown>
          <Menu.Item onClick={() => setOpen('field')}>A field</Menu.Item>
          <Menu.Item onClick={() => setOpen('state')} disabled={machines.length === 0}>
            A state
          </Menu.Item>
          <Menu.Item onClick={() => setOpen('transition')} disabled={machines.length === 0}>
            A transition
          </Menu.Item>
          <Menu.Item onClick={() => setOpen('role')} disabled={model.roles.length === 0}>
            A role
          </Menu.Item>
        </Menu.Dropdown>
      </Menu>
      {/* The written row keeps the keyboard: closing does not hand focus back to the menu. */}
      <Modal opened={open !== null} onClose={close} title={open ? TITLES[open] : ''} size="lg" returnFocus={false}>
        {open === 'field' && (
          <FieldFormView model={model} onSubmit={(entity, form) => done(fieldInsert(source, model, entity, form))} />
        )}
        {open === 'state' && (
          <StateFormView model={model} onSubmit={(entity, form) => done(stateInsert(source, model, entity, form))} />
        )}
        {open === 'transition' && (
          <TransitionFormView
            model={model}
            onSubmit={(entity, form) => done(transitionInsert(source, model, entity, form))}
          />
        )}
        {open === 'role' && <RoleFormView model={model} onSubmit={(form) => done(roleInsert(source, model, form))} />}
      </Modal>
    </>
  );
}

/** A form that writes when valid and shows why not otherwise (a problem from the page, or where to write). */
function GuidedForm({ submit, label, children }: { submit: () => string | null; label: string; children: ReactNode }) {
  const [problem, setProblem] = useState<string | null>(null);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setProblem(submit());
  };
  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack gap="sm">
        {children}
        {problem && (
          <Text c="red.8" size="sm" role="alert">
            {problem}
          </Text>
        )}
        <Group justify="flex-end">
          <Button type="submit">{label}</Button>
        </Group>
      </Stack>
    </form>
  );
}

const NAME = /^[a-z][a-z0-9_ ]*$/;

function FieldFormView({
  model,
  onSubmit,
}: {
  model: Model;
  onSubmit(entity: string, form: FieldForm): string | null;
}) {
  const [entity, setEntity] = useState(model.entities[0]?.name ?? '');
  const [form, setForm] = useState<FieldForm>({
    name: '',
    type: 'text',
    required: false,
    values: '',
    colours: {},
    entity: '',
    maxMegabytes: 0,
    kinds: [],
    maxFiles: 0,
    keepsLocation: false,
    meaning: '',
  });
  const [shown, setShown] = useState(false);
  const set = (patch: Partial<FieldForm>) => setForm((f) => ({ ...f, ...patch }));
  const taken = model.entities.find((e) => e.name === entity)?.fields.map((f) => f.name) ?? [];
  const nameProblem = fieldNameProblem(form.name, taken);
  const file = isFileType(form.type);
  const image = form.type === 'image' || form.type === 'images';
  const several = form.type === 'files' || form.type === 'images';
  const defaultMegabytes = FILE_DEFAULT_MAX_BYTES / (1024 * 1024);
  return (
    <GuidedForm
      label="Add the field"
      submit={() => {
        setShown(true);
        if (nameProblem) return nameProblem;
        if (form.type === 'choice' && form.values.trim() === '') return 'List the values, separated by commas.';
        if (form.type === 'reference' && form.entity === '') return 'Choose what the field refers to.';
        return onSubmit(entity, form);
      }}
    >
      <Select
        label="Entity"
        data={model.entities.map((e) => e.name)}
        value={entity}
        onChange={(v) => setEntity(v ?? entity)}
        allowDeselect={false}
      />
      <TextInput
        label="Name"
        description="Lower case, words joined by _ (e.g. due_on)"
        value={form.name}
        onChange={(e) => set({ name: e.currentTarget.value })}
        error={shown ? nameProblem : null}
        data-autofocus
      />
      <Select
        label="Type"
        data={FIELD_TYPES.map((t) => ({ value: t.value, label: t.label }))}
        value={form.type}
        onChange={(v) => set({ type: (v ?? 'text') as FieldTypeChoice, kinds: [] })}
        allowDeselect={false}
      />
      {form.type === 'choice' && (
        <TextInput
          label="Values"
          description="In order, calm to urgent where that applies: low, normal, high"
          value={form.values}
          onChange={(e) => set({ values: e.currentTarget.value })}
        />
      )}
      {form.type === 'choice' && (
        <ChoiceColours values={form.values} colours={form.colours} onChange={(colours) => set({ colours })} />
      )}
      {form.type === 'reference' && (
        <Select
          label="Refers to"
          data={['User', ...model.entities.map((e) => e.name)]}
          value={form.entity || null}
          onChange={(v) => set({ entity: v ?? '' })}
        />
      )}
      {file && (
        <Group grow align="flex-start">
          <NumberInput
            label="Largest file, MB"
            description={`Empty: ${defaultMegabytes} MB`}
            min={1}
            max={5 * 1024}
            allowDecimal={false}
            value={form.maxMegabytes || ''}
            onChange={(v) => set({ maxMegabytes: typeof v === 'number' ? v : 0 })}
          />
          {several && (
            <NumberInput
              label={image ? 'Images at most' : 'Files at most'}
              min={1}
              max={100}
              allowDecimal={false}
              value={form.maxFiles || ''}
              onChange={(v) => set({ maxFiles: typeof v === 'number' ? v : 0 })}
            />
          )}
        </Group>
      )}
      {file && (
        <MultiSelect
          label="Kinds accepted"
          description={
            image
              ? 'Empty: any image a browser shows'
              : 'Empty: any file. The kind is read from the bytes, not the name.'
          }
          data={fileKinds(image)}
          value={form.kinds}
          onChange={(kinds) => set({ kinds })}
          searchable
        />
      )}
      {file && kindsCarryLocation(form.kinds) && (
        <Checkbox
          label="Keep photos’ location"
          description="Off: the EXIF location is removed from photos as they arrive"
          checked={form.keepsLocation}
          onChange={(e) => set({ keepsLocation: e.currentTarget.checked })}
        />
      )}
      <Checkbox label="Required" checked={form.required} onChange={(e) => set({ required: e.currentTarget.checked })} />
      <TextInput
        label="Meaning"
        description="What it holds, in a few words; a unit first for numbers (hours, …)"
        value={form.meaning}
        onChange={(e) => set({ meaning: e.currentTarget.value })}
      />
    </GuidedForm>
  );
}

const NO_COLOUR = 'none';
const COLOUR_OPTIONS = [
  { value: NO_COLOUR, label: 'No colour' },
  ...CHOICE_COLOURS.map((colour) => ({ value: colour, label: colour })),
];
/** The swatch of a palette colour, as the app's badges draw it (Mantine spells grey `gray`). */
const swatch = (colour: ChoiceColour) => `var(--mantine-color-${colour === 'grey' ? 'gray' : colour}-filled)`;

/**
 * A colour picker per value of a choice, from the spec's palette, each colour with its swatch.
 * A colour typed in the values (`high (red)`) shows as picked; one the palette does not know is
 * named here, as the checker would (`unknown-colour`), until another is picked.
 */
function ChoiceColours({
  values,
  colours,
  onChange,
}: {
  values: string;
  colours: FieldForm['colours'];
  onChange(colours: FieldForm['colours']): void;
}) {
  const listed = choiceValues(values);
  if (listed.length === 0) return null;
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        Colours
      </Text>
      <Text size="xs" c="dimmed">
        Optional: a value's badge colour on lists, boards and charts
      </Text>
      <SimpleGrid cols={{ base: 2, xs: 3 }} spacing="xs" verticalSpacing={4}>
        {listed.map(({ name, typed }) => {
          const picked = colours[name];
          const known = typed ? choiceColour(typed) : null;
          const current = picked === undefined ? known : picked;
          return (
            <Select
              key={name}
              size="xs"
              label={name}
              aria-label={`Colour of ${name}`}
              data={COLOUR_OPTIONS}
              value={current ?? NO_COLOUR}
              onChange={(v) => onChange({ ...colours, [name]: v && v !== NO_COLOUR ? (v as ChoiceColour) : null })}
              allowDeselect={false}
              leftSection={current ? <ColorSwatch color={swatch(current)} size={12} /> : null}
              renderOption={({ option }) => (
                <Group gap="xs" wrap="nowrap">
                  {option.value !== NO_COLOUR && <ColorSwatch color={swatch(option.value as ChoiceColour)} size={12} />}
                  {option.label}
                </Group>
              )}
              error={
                picked === undefined && typed && !known
                  ? `"${typed}" is not one of the palette's colours: pick one`
                  : null
              }
            />
          );
        })}
      </SimpleGrid>
    </Stack>
  );
}

function StateFormView({
  model,
  onSubmit,
}: {
  model: Model;
  onSubmit(entity: string, form: { name: string; meaning: string }): string | null;
}) {
  const machines = model.machines.map((m) => m.entity);
  const [entity, setEntity] = useState(machines[0] ?? '');
  const [name, setName] = useState('');
  const [meaning, setMeaning] = useState('');
  return (
    <GuidedForm
      label="Add the state"
      submit={() =>
        NAME.test(name.trim()) ? onSubmit(entity, { name, meaning }) : 'Name the state in lower case (e.g. on_hold).'
      }
    >
      <Select
        label="Of"
        data={machines}
        value={entity}
        onChange={(v) => setEntity(v ?? entity)}
        allowDeselect={false}
      />
      <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} data-autofocus />
      <TextInput label="Meaning" value={meaning} onChange={(e) => setMeaning(e.currentTarget.value)} />
      <Text size="xs" c="dimmed">
        A state is reached by a transition: add one next, or the checker says nothing leads to it.
      </Text>
    </GuidedForm>
  );
}

function TransitionFormView({
  model,
  onSubmit,
}: {
  model: Model;
  onSubmit(
    entity: string,
    form: { name: string; from: string[]; to: string; who: string[]; when: string; meaning: string },
  ): string | null;
}) {
  const machines = model.machines.filter((m) => m.transitions.length > 0);
  const [entity, setEntity] = useState(machines[0]?.entity ?? '');
  const machine = machines.find((m) => m.entity === entity);
  const states = machine?.states.map((s) => s.name) ?? [];
  const [name, setName] = useState('');
  const [from, setFrom] = useState<string[]>([]);
  const [to, setTo] = useState<string | null>(null);
  const [who, setWho] = useState<string[]>([]);
  const [when, setWhen] = useState('');
  const [meaning, setMeaning] = useState('');
  return (
    <GuidedForm
      label="Add the transition"
      submit={() => {
        if (!NAME.test(name.trim())) return 'Name the transition in lower-case words (e.g. put on hold).';
        if (from.length === 0 || !to) return 'Choose the states it leaves and the state it enters.';
        return onSubmit(entity, { name, from, to, who, when, meaning });
      }}
    >
      <Select
        label="Of"
        data={machines.map((m) => m.entity)}
        value={entity}
        onChange={(v) => {
          setEntity(v ?? entity);
          setFrom([]);
          setTo(null);
        }}
        allowDeselect={false}
      />
      <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} data-autofocus />
      <Group grow align="flex-start">
        <MultiSelect label="From" data={states} value={from} onChange={setFrom} searchable />
        <Select label="To" data={states} value={to} onChange={setTo} />
      </Group>
      <MultiSelect
        label="Who"
        description="Empty: every role that may change the record"
        data={model.roles.map((r) => r.name)}
        value={who}
        onChange={setWho}
        searchable
      />
      <TextInput
        label="When (optional)"
        description="A condition, e.g. due < today"
        value={when}
        onChange={(e) => setWhen(e.currentTarget.value)}
      />
      <TextInput label="Meaning (optional)" value={meaning} onChange={(e) => setMeaning(e.currentTarget.value)} />
    </GuidedForm>
  );
}

const GRANTS = [
  { value: '', label: 'Nothing' },
  { value: 'read', label: 'Read all' },
  { value: 'read own', label: 'Read their own' },
  { value: 'create, read own, update own', label: 'Create, and read and change their own' },
  { value: 'create, read, update', label: 'Create, read and change all' },
  { value: 'create, read, update, delete', label: 'Everything' },
];

function RoleFormView({
  model,
  onSubmit,
}: {
  model: Model;
  onSubmit(form: { name: string; meaning: string; grants: Record<string, string> }): string | null;
}) {
  const [name, setName] = useState('');
  const [meaning, setMeaning] = useState('');
  const [grants, setGrants] = useState<Record<string, string>>({});
  // The entities the roles table has a column for.
  const granted = [...new Set(model.permissions.map((p) => p.entity))];
  return (
    <GuidedForm
      label="Add the role"
      submit={() =>
        NAME.test(name.trim()) && !name.includes(' ')
          ? onSubmit({ name, meaning, grants })
          : 'Name the role in lower case, one word (e.g. volunteer).'
      }
    >
      <TextInput label="Name" value={name} onChange={(e) => setName(e.currentTarget.value)} data-autofocus />
      <TextInput label="Meaning" value={meaning} onChange={(e) => setMeaning(e.currentTarget.value)} />
      {granted.map((entity) => (
        <Select
          key={entity}
          label={`May do with ${entity}`}
          data={GRANTS}
          value={grants[entity] ?? ''}
          onChange={(v) => setGrants((g) => ({ ...g, [entity]: v ?? '' }))}
          allowDeselect={false}
        />
      ))}
    </GuidedForm>
  );
}
