import { describe, expect, it } from 'vitest';

import { fieldLabel } from '../../../src-main/core/model/field-labels.js';

describe('fieldLabel', () => {
  it('names a finding’s field as the grid does, never by its request path', () => {
    expect(fieldLabel('album.track_position')).toBe('Track #');
    expect(fieldLabel('albums[0].upc')).toBe('UPC');
    expect(fieldLabel('isrc')).toBe('ISRC');
  });

  it('keeps a field it has no name for as it is', () => {
    expect(fieldLabel('catalog_id')).toBe('catalog_id');
  });
});
