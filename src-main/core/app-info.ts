import packageJson from '../../package.json';

/** Name and version of this build, read from package.json at build time. */
export const app = {
  name: packageJson.name,
  productName: packageJson.productName,
  version: packageJson.version,
} as const;
