import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { evaluate } from '../../src/tools/builtins/arithmetic.js';

describe('evaluate (the calculator parser)', () => {
  it('follows precedence and associativity', () => {
    assert.equal(evaluate('2 + 3 * 4'), 14);
    assert.equal(evaluate('(2 + 3) * 4'), 20);
    assert.equal(evaluate('10 - 4 - 3'), 3);
    assert.equal(evaluate('2 ^ 3 ^ 2'), 512);
    assert.equal(evaluate('2 ** 10'), 1024);
    assert.equal(evaluate('-2 ^ 2'), 4);
    assert.equal(evaluate('7 % 4 + 1.5e1'), 18);
  });

  it('knows functions and constants', () => {
    assert.equal(evaluate('sqrt(16) + abs(-2) + max(1, 5, 3)'), 11);
    assert.equal(evaluate('round(pi * 100)'), 314);
    assert.equal(evaluate('ln(e)'), 1);
  });

  it('says where an expression is wrong', () => {
    assert.throws(() => evaluate('1 +'), /Unexpected end of expression/);
    assert.throws(() => evaluate('(1 + 2'), /Expected '\)' at the end/);
    assert.throws(() => evaluate('1 $ 2'), /Unexpected character '\$' at position 3/);
    assert.throws(() => evaluate('1 / 0'), /Division by zero/);
    assert.throws(() => evaluate('2 3'), /Unexpected '3' at position 3/);
    assert.throws(() => evaluate(''), /Empty expression/);
  });

  it('never evaluates code', () => {
    assert.throws(() => evaluate('process.exit(1)'), /Unexpected character '\.'|Unknown name/);
    assert.throws(() => evaluate('constructor(1)'), /Unknown function 'constructor'/);
    assert.throws(() => evaluate('toString'), /Unknown name 'tostring'/);
  });
});
