import { describe, expect, it } from 'vitest';

import { columnIds, defaultColumnOrder } from './columns.js';

describe('the default column order', () => {
  it('holds every column once', () => {
    expect([...defaultColumnOrder].sort()).toEqual([...columnIds].sort());
  });
});
