/**
 * Drives the uploader in a child process for crash tests: `npx tsx test/support/upload-child.ts
 * DIR FOLDER`. The target comes from the environment (never argv, which other users can read):
 * S3_ENDPOINT, S3_REGION, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY; the data directory
 * from COURIER_HOME; UPLOAD_OPTIONS is JSON UploadOptions. Prints one JSON event per line
 * (progress throttled by the engine) and a final `{"type":"report",...}`; exits 0 only when
 * every file is in the bucket.
 */
import { uploadDirectory } from '../../src-main/core/storage/upload-directory.js';

const [dir, folder] = process.argv.slice(2);
const env = process.env;
if (!dir || !folder || !env.S3_BUCKET || !env.COURIER_HOME) {
  process.stderr.write(
    'usage: upload-child.ts DIR FOLDER (target in S3_* env, COURIER_HOME set)\n',
  );
  process.exit(2);
}
const report = await uploadDirectory({
  dir,
  folder,
  dataDir: env.COURIER_HOME,
  target: {
    endpoint: env.S3_ENDPOINT,
    region: env.S3_REGION ?? 'us-east-1',
    bucket: env.S3_BUCKET,
    accessKeyId: env.S3_ACCESS_KEY_ID ?? '',
    secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? '',
  },
  options: JSON.parse(env.UPLOAD_OPTIONS ?? '{}'),
  onEvent: (event) => {
    if (event.type === 'progress') {
      // Per-file detail is noise for the test reading these lines.
      process.stdout.write(JSON.stringify({ ...event, files: undefined }) + '\n');
    } else process.stdout.write(JSON.stringify(event) + '\n');
  },
});
process.stdout.write(JSON.stringify({ type: 'report', ...report }) + '\n');
process.exitCode = report.ok ? 0 : 1;
