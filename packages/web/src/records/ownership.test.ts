import { readFileSync } from 'node:fs';
import { checkSpec } from '@ninepoint/spec';
import { describe, expect, it } from 'vitest';
import type { Me } from '../api/session.ts';
import { type ChainLoader, ownerChains, reachesUser } from './ownership.ts';

const source = readFileSync(new URL('../../../server/test/fixtures/clinic.md', import.meta.url), 'utf8');
const model = checkSpec(source).model;

const AMARA = '01900000-0000-7000-8000-0000000000a1';
const JONAS = '01900000-0000-7000-8000-0000000000b2';
const LENA = '01900000-0000-7000-8000-0000000000c3';
const person = (id: string, roles: string[]): Me => ({
  user: { id, email: `${id}@x.test`, name: id, roles, createdAt: '2026-01-01T00:00:00.000Z' },
  access: {},
  people: null,
  signUp: [],
  singleSignOn: null,
  twoFactor: null,
});

const doctors: Record<string, { account: string }> = {
  'd-amara': { account: AMARA },
  'd-jonas': { account: JONAS },
};
const patients: Record<string, { account: string }> = { 'p-lena': { account: LENA } };
const loads: string[] = [];
const load: ChainLoader = async (entity, id) => {
  loads.push(`${entity} ${id}`);
  if (entity === 'Doctor') return doctors[id];
  if (entity === 'Patient') return patients[id];
  throw new Error(`cannot read ${entity}`);
};
const appointment = { id: 'a-1', state: 'requested', doctor: 'd-amara', patient: 'p-lena', created_by: LENA };

describe('whose a record is, through references', () => {
  it('takes the chains from the roles’ own grants, per operation', () => {
    expect(ownerChains(model, person(AMARA, ['doctor']), 'Appointment', 'update')).toEqual([['doctor', 'account']]);
    expect(ownerChains(model, person(AMARA, ['doctor']), 'Appointment', 'delete')).toEqual([]);
    expect(ownerChains(model, person(LENA, ['patient']), 'Appointment', 'delete')).toEqual([['patient', 'account']]);
    // The admin's `all` needs no chain.
    expect(ownerChains(model, person(AMARA, ['admin']), 'Appointment', 'update')).toEqual([]);
  });

  it('follows doctor.account to the user: the appointment’s doctor is theirs, or not', async () => {
    const chains = [['doctor', 'account']];
    await expect(reachesUser(model, 'Appointment', appointment, chains, AMARA, load)).resolves.toBe(true);
    await expect(reachesUser(model, 'Appointment', appointment, chains, JONAS, load)).resolves.toBe(false);
    expect(loads).toContain('Doctor d-amara');
  });

  it('leads nowhere from an empty reference or a record that does not exist', async () => {
    const chains = [['doctor', 'account']];
    await expect(
      reachesUser(model, 'Appointment', { ...appointment, doctor: null }, chains, AMARA, load),
    ).resolves.toBe(false);
    await expect(
      reachesUser(model, 'Appointment', { ...appointment, doctor: 'd-gone' }, chains, AMARA, load),
    ).resolves.toBe(false);
  });

  it('leaves to the server what it cannot read: a hidden field, a record it may not fetch', async () => {
    const { doctor: _hidden, ...withoutDoctor } = appointment;
    await expect(reachesUser(model, 'Appointment', withoutDoctor, [['doctor', 'account']], JONAS, load)).resolves.toBe(
      true,
    );
    const refusing: ChainLoader = async () => {
      throw new Error('404');
    };
    await expect(
      reachesUser(model, 'Appointment', appointment, [['doctor', 'account']], JONAS, refusing),
    ).resolves.toBe(true);
  });

  it('is owned when any one chain leads to the user', async () => {
    const chains = [
      ['doctor', 'account'],
      ['patient', 'account'],
    ];
    await expect(reachesUser(model, 'Appointment', appointment, chains, LENA, load)).resolves.toBe(true);
    await expect(reachesUser(model, 'Appointment', appointment, [['created_by']], LENA, load)).resolves.toBe(true);
    await expect(reachesUser(model, 'Appointment', appointment, [], LENA, load)).resolves.toBe(false);
  });
});
