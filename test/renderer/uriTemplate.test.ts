import { describe, expect, it } from 'vitest';
import { optionalTemplateVariables } from '../../renderer/src/lib/uriTemplate.js';

describe('optionalTemplateVariables', () => {
  it('only form-style query variables may be left empty', () => {
    expect([...optionalTemplateVariables('demo://resource/dynamic/blob/{resourceId}')]).toEqual([]);
    expect([...optionalTemplateVariables('file:///{+path}{#frag}{.ext}{/seg}{;p}')]).toEqual([]);
    expect([...optionalTemplateVariables('search://{q}{?page,limit:3}{&sort*}')].sort()).toEqual([
      'limit',
      'page',
      'sort',
    ]);
  });
});
