/**
 * Typed view of the addon's generation bridge (native/engine). The addon is
 * loaded by the one loader in src/native; this file only describes and maps.
 */
import { EngineError, EngineUnavailableError } from '../errors';
import { loadEmbedded } from '../native/loader';
import type { NativeSampling } from './sampling';

export interface NativeEndEvent {
  status: number;
  statusName: string;
  error: string;
  cancelled: boolean;
  finishReason?: string;
  text?: string;
  promptTokens?: number;
  completionTokens?: number;
}

export type NativeEventCallback = (type: 'delta' | 'end', payload: string | NativeEndEvent) => void;

export interface NativeRequestHandle {
  cancel(): void;
}

export interface NativeEngineHandle {
  chatStream(requestJson: string, onEvent: NativeEventCallback): NativeRequestHandle;
  submit(prompt: string, sampling: NativeSampling, onEvent: NativeEventCallback): NativeRequestHandle;
  complete(prompt: string, sampling: NativeSampling, onEvent: NativeEventCallback): NativeRequestHandle;
  /** Resolves true once every request ended and the engine was freed. */
  close(): Promise<boolean>;
  liveRequests(): number;
  readonly libraryVersion: string;
  readonly libraryPath: string;
}

export interface NativeLoadParams {
  model: string;
  blockSize?: number;
  numBlocks?: number;
  maxModelLen?: number;
  maxNumSeqs?: number;
  toolParser?: string;
  reasoningParser?: string;
}

interface RawBridge {
  loadEngine(library: string, params: NativeLoadParams): Promise<NativeEngineHandle>;
  libraryInfo(library: string): { path: string; version: string; abiVersion: number };
  abiVersion: number;
}

export interface Bridge {
  load(library: string, params: NativeLoadParams): Promise<NativeEngineHandle>;
  libraryInfo(library: string): { path: string; version: string; abiVersion: number };
  /** The libvllm C ABI version this addon speaks. */
  abiVersion: number;
}

function mapNativeError(e: unknown): unknown {
  const err = e as { kind?: string; message?: string; vllmStatus?: string };
  if (!err || typeof err.kind !== 'string') return e;
  if (err.kind === 'unavailable') {
    return new EngineUnavailableError(
      `${err.message}. Point the package at a libvllm built from vllm.cpp (its \`vllm_shared\` target): ` +
        'pass `library` to Engine.load or set VLLM_CPP_LIB.',
      { cause: e },
    );
  }
  const mapped = new EngineError(
    err.kind === 'load' ? `libvllm could not load the model: ${err.message}` : String(err.message),
    { cause: e },
  );
  if (err.vllmStatus) mapped.vllmStatus = err.vllmStatus;
  return mapped;
}

let cached: Bridge | undefined;

export function loadBridge(): Bridge {
  if (cached) return cached;
  const raw = (loadEmbedded() as unknown as { bridge?: RawBridge }).bridge;
  if (!raw) throw new EngineUnavailableError('this build of the node-vllm-cpp addon has no engine bridge; rebuild it (npm run build:native)');
  cached = {
    abiVersion: raw.abiVersion,
    async load(library, params) {
      try {
        return await raw.loadEngine(library, params);
      } catch (e) {
        throw mapNativeError(e);
      }
    },
    libraryInfo(library) {
      try {
        return raw.libraryInfo(library);
      } catch (e) {
        throw mapNativeError(e);
      }
    },
  };
  return cached;
}
