/**
 * Turns what the user picked or dropped into files with their relative paths. Folders are
 * walked recursively; Chromium hands a folder's entries out in chunks, so each folder is read
 * until it answers with an empty chunk.
 */
import type { PickedFile } from '../../src-main/ipc/contract.js';

/** Files chosen through `<input type=file>` (with `webkitdirectory`, paths include the folder). */
function filesFromInput(list: FileList | null): PickedFile[] {
  return Array.from(list ?? [], (file) => ({
    file,
    relativePath: file.webkitRelativePath || file.name,
  }));
}

/**
 * Takes the files chosen through `input` and empties it: picking the same folder again then fires
 * `change` again, and the input does not hold every picked file while they are added (the add
 * lets them go a chunk at a time; held to its end, 100,000 files became garbage at once, and the
 * page's largest collection followed the add).
 */
export function takeFromInput(input: HTMLInputElement): PickedFile[] {
  const picked = filesFromInput(input.files);
  input.value = '';
  return picked;
}

/** Files and folders dropped on the window, folders walked to every file inside. */
export async function filesFromDrop(transfer: DataTransfer): Promise<PickedFile[]> {
  // Entries must be taken synchronously: the DataTransfer is emptied once the handler yields.
  const entries = Array.from(transfer.items, (item) => item.webkitGetAsEntry()).filter(
    (entry): entry is FileSystemEntry => entry !== null,
  );
  const picked: PickedFile[] = [];
  for (const entry of entries) await walk(entry, picked);
  return picked;
}

async function walk(entry: FileSystemEntry, into: PickedFile[]): Promise<void> {
  if (isFile(entry)) {
    const file = await new Promise<File>((resolve, reject) => entry.file(resolve, reject));
    into.push({ file, relativePath: entry.fullPath.replace(/^\//, '') });
    return;
  }
  if (!isDirectory(entry)) return;
  const reader = entry.createReader();
  for (;;) {
    const chunk = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (chunk.length === 0) return;
    for (const child of chunk) await walk(child, into);
  }
}

const isFile = (entry: FileSystemEntry): entry is FileSystemFileEntry => entry.isFile;
const isDirectory = (entry: FileSystemEntry): entry is FileSystemDirectoryEntry =>
  entry.isDirectory;
