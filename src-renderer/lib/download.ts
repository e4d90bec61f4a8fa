/**
 * Handing files to the browser's own download: made in the page (a Blob), or fetched from an
 * address main gave (the browser host streams bucket objects that way). Works in the browser
 * host and in Electron's renderer alike.
 */

/** Starts the browser's download of `href`; a failed one stays in the downloads list, not the page. */
function startDownload(href: string, fileName = ''): void {
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
}

/** Offers a file with this content to the user as a download. */
export function downloadBlob(fileName: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  startDownload(url, fileName);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Offers text as a download. */
export function downloadText(fileName: string, text: string, type = 'text/plain'): void {
  downloadBlob(fileName, new Blob([text], { type: `${type};charset=utf-8` }));
}

/** Downloads what a same-origin address serves, under the name its Content-Disposition gives. */
export function downloadFrom(url: string): void {
  startDownload(url);
}
