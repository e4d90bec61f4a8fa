import { describe, expect, it } from 'vitest';

import { Redactor } from '../../../src-main/core/log.js';
import { isLoopbackHost, parseProfile } from '../../../src-main/core/profiles/profile.js';

const valid = {
  name: 'Label',
  environment: 'production',
  base_url: 'https://api.example.com',
  client_id: 'abc',
  bucket: {
    bucket_name: 'caas-org-eu-west-1-prd',
    bucket_region: 'eu-west-1',
    access_key_id: 'AK',
  },
  catalogs: [],
};

describe('parseProfile()', () => {
  it('accepts https and normalises a trailing slash away', () => {
    expect(parseProfile({ ...valid, base_url: 'https://api.example.com/v1/' }).base_url).toBe(
      'https://api.example.com/v1',
    );
  });

  it.each(['http://127.0.0.1:8080', 'http://localhost:3000', 'http://[::1]:80'])(
    'allows plain http on this machine: %s',
    (url) => {
      expect(parseProfile({ ...valid, base_url: url }).base_url).toBe(url);
    },
  );

  it.each(['http://api.example.com', 'http://192.168.1.10', 'ftp://x.example.com', 'not a url'])(
    'refuses %s, naming the field',
    (url) => {
      expect(() => parseProfile({ ...valid, base_url: url })).toThrow(
        /^base_url must (use https|be a URL)/,
      );
    },
  );

  it('holds the S3 endpoint to the same rule', () => {
    expect(() =>
      parseProfile({ ...valid, bucket: { ...valid.bucket, endpoint: 'http://minio.lan:9000' } }),
    ).toThrow(/bucket\.endpoint: S3 endpoint must use https/);
  });

  it.each([
    ['Bucket_Name', /bucket name/],
    ['ab', /bucket name/],
    ['192.168.0.1', /bucket name/],
  ])('refuses the bucket name %s', (name, message) => {
    expect(() =>
      parseProfile({ ...valid, bucket: { ...valid.bucket, bucket_name: name } }),
    ).toThrow(message);
  });

  it('refuses an unknown environment and a name with a slash', () => {
    expect(() => parseProfile({ ...valid, environment: 'prod' })).toThrow(/environment/);
    expect(() => parseProfile({ ...valid, name: 'a/b' })).toThrow(/profile name/);
  });

  it('knows loopback hosts', () => {
    expect(isLoopbackHost('127.0.0.2')).toBe(true);
    expect(isLoopbackHost('[::1]')).toBe(true);
    expect(isLoopbackHost('127.0.0.1.example.com')).toBe(false);
  });
});

describe('Redactor', () => {
  it('replaces known secrets, bearer tokens and secret-named fields', () => {
    const redactor = new Redactor();
    redactor.add('s3cr3t-value');
    const line = redactor.redact(
      'sent s3cr3t-value with Authorization: Bearer abc.def and {"client_secret":"xyz","token":"t1"}',
    );
    expect(line).not.toMatch(/s3cr3t-value|abc\.def|xyz|t1"/);
    expect(line).toContain('Bearer [redacted]');
  });
});
