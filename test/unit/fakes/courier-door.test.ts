import { describe, expect, it } from 'vitest';

import {
  type Envelope,
  ok,
  type OperationName,
  operations,
} from '../../../src-main/ipc/contract.js';
import { fakeDoor, isCourierApi, NOT_FAKED } from '../../fakes/courier-door.js';

describe('the fake door of the renderer tests', () => {
  it('has one function per operation of the contract, `on`, and the event helpers', () => {
    expect(isCourierApi(fakeDoor(), ['emit', 'listenerCount'])).toBe(true);
    expect(isCourierApi(fakeDoor())).toBe(false);
  });

  it('answers every operation the test did not fake with an error naming that operation', async () => {
    const door = fakeDoor();
    for (const name of Object.keys(operations) as OperationName[]) {
      const call = door[name] as (request: unknown) => Promise<Envelope<unknown>>;
      expect(await call({})).toEqual({
        ok: false,
        error: {
          code: NOT_FAKED,
          message: `${name} is not part of this test: fake it with fakeDoor({ ${name}: … }).`,
        },
      });
    }
  });

  it('answers what the test faked, given or set later, and leaves the rest unfaked', async () => {
    const door = fakeDoor({ listTags: async () => ok({ tags: [], total: 0, complete: true }) });
    door.useProfile = async ({ name }) => ok({ active: name });
    expect(await door.listTags({ profile: 'Sandbox' })).toEqual(
      ok({ tags: [], total: 0, complete: true }),
    );
    expect(await door.useProfile({ name: 'Label' })).toEqual(ok({ active: 'Label' }));
    expect(await door.listProfiles({})).toMatchObject({ ok: false, error: { code: NOT_FAKED } });
  });

  it('sends an event to the listeners of that event until they unsubscribe', () => {
    const door = fakeDoor();
    const notices: string[] = [];
    const views: string[] = [];
    const stop = door.on('app:notice', ({ message }) => notices.push(message));
    door.on('app:navigate', ({ view }) => views.push(view));
    door.emit('app:notice', { level: 'info', message: 'hello' });
    expect(door.listenerCount('app:notice')).toBe(1);
    stop();
    door.emit('app:notice', { level: 'info', message: 'again' });
    expect(notices).toEqual(['hello']);
    expect(views).toEqual([]);
    expect(door.listenerCount('app:notice')).toBe(0);
    expect(door.listenerCount('app:navigate')).toBe(1);
  });
});
