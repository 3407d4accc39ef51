/**
 * Budgets and environment safety of the embedded engine: the wall-clock and
 * memory budgets surface as LimitError through every render entry point, and
 * terminating worker_threads Workers mid-render (sync and thread-pool
 * renders) never takes the process down. Expected values are typed errors
 * or Python facts (6 * 7 is 42).
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileTemplate, LimitError, renderChat, renderChatAsync, TemplateError } from '../../src';

const RUNAWAY = '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}';
const MESSAGES = { messages: [{ role: 'user', content: 'hi' }] };

function limitOf(fn: () => unknown): TemplateError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(LimitError);
    return e as TemplateError;
  }
  throw new Error('expected a LimitError');
}

describe('wall-clock budget (maxRenderMs)', () => {
  it('stops a runaway render through renderJson', () => {
    const t0 = Date.now();
    const e = limitOf(() => compileTemplate(RUNAWAY).renderJson('{}', { maxRenderMs: 300, maxSteps: 1e15 }));
    expect(e.pythonType).toBe('TimeoutError');
    expect(Date.now() - t0).toBeLessThan(3000);
  });

  it('stops a runaway render through renderChat and renderChatAsync', async () => {
    const e = limitOf(() => renderChat(MESSAGES, { template: RUNAWAY, maxRenderMs: 300, maxSteps: 1e15 }));
    expect(e.pythonType).toBe('TimeoutError');
    await expect(renderChatAsync(MESSAGES, { template: RUNAWAY, maxRenderMs: 300, maxSteps: 1e15 })).rejects.toBeInstanceOf(LimitError);
  });

  it('stops work inside one long builtin loop, not only between nodes', () => {
    const tpl = "{% set s = 'a' * 10**6 %}{% for i in range(100000) %}{% set t = s|upper %}{% endfor %}";
    const t0 = Date.now();
    limitOf(() => compileTemplate(tpl).renderJson('{}', { maxRenderMs: 300, maxSteps: 1e15 }));
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});

describe('memory budget (maxMemoryBytes)', () => {
  it('counts intermediate strings, not only emitted text', () => {
    const e = limitOf(() => compileTemplate("{{ range(100000)|join('x' * 10000000)|length }}").renderJson('{}'));
    expect(e.pythonType).toBe('MemoryError');
  });

  it('a smaller budget refuses what the default allows', () => {
    const tpl = "{{ ('x' * 2000000)|length }}";
    expect(compileTemplate(tpl).renderJson('{}')).toBe('2000000');
    expect(limitOf(() => compileTemplate(tpl).renderJson('{}', { maxMemoryBytes: 1 << 20 })).pythonType).toBe('MemoryError');
    expect(limitOf(() => renderChat(MESSAGES, { template: tpl, maxMemoryBytes: 1 << 20 })).pythonType).toBe('MemoryError');
  });

  it('counts containers held by loops', () => {
    const tpl = '{% for x in [1] recursive %}{{ loop(range(100000)) }}{% endfor %}';
    expect(limitOf(() => compileTemplate(tpl).renderJson('{}', { maxMemoryBytes: 64 << 20 })).pythonType).toBe('MemoryError');
  });
});

describe('worker_threads', () => {
  it('terminating Workers mid-render 100 times never kills the process', () => {
    const child = spawnSync(process.execPath, [path.join(__dirname, 'hostile', 'workers.cjs'), '100'], {
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(child.signal, child.stderr.slice(-2000)).toBeNull();
    expect(child.status, child.stderr.slice(-2000)).toBe(0);
    const result = JSON.parse(child.stdout.trim().split('\n').pop() as string) as { rounds: number; out: string; slowestTerminateMs: number };
    expect(result.rounds).toBe(100);
    expect(result.out).toBe('42');
    // Renders in a terminated Worker stop within a poll interval, not at their 20 s budget.
    expect(result.slowestTerminateMs).toBeLessThan(5000);
  }, 120_000);
});
