"""Writes .proto files for tensorflow.Event and tensorflow.TensorProto (and what they import) from
the descriptors compiled into an installed TensorFlow, since pip packages ship only `_pb2.py`.

Usage: python tf_protos.py DEST_DIR [MODULE...]
       (default: tensorflow.core.util.event_pb2, framework.tensor_pb2, framework.graph_pb2)
Needs `pip install tensorflow-cpu`; the tests never do. Check the result with
`python -m grpc_tools.protoc -IDEST --descriptor_set_out=...` against the modules' descriptors.
"""
import sys, os, importlib
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import FieldDescriptor as FD

TYPES = {FD.TYPE_DOUBLE:'double',FD.TYPE_FLOAT:'float',FD.TYPE_INT64:'int64',FD.TYPE_UINT64:'uint64',
 FD.TYPE_INT32:'int32',FD.TYPE_FIXED64:'fixed64',FD.TYPE_FIXED32:'fixed32',FD.TYPE_BOOL:'bool',
 FD.TYPE_STRING:'string',FD.TYPE_BYTES:'bytes',FD.TYPE_UINT32:'uint32',FD.TYPE_SFIXED32:'sfixed32',
 FD.TYPE_SFIXED64:'sfixed64',FD.TYPE_SINT32:'sint32',FD.TYPE_SINT64:'sint64'}

def tname(f, pkg):
    if f.type in (FD.TYPE_MESSAGE, FD.TYPE_ENUM, FD.TYPE_GROUP):
        n = f.type_name
        return n if not n.startswith('.') else n  # fully qualified with leading dot
    return TYPES[f.type]

def render_enum(e, ind):
    out=[f"{ind}enum {e.name} {{"]
    for v in e.value:
        out.append(f"{ind}  {v.name} = {v.number};")
    for r in e.reserved_range:
        out.append(f"{ind}  reserved {r.start}{'' if r.end==r.start else ' to '+str(r.end)};")
    if e.reserved_name:
        out.append(f"{ind}  reserved {', '.join(repr(n).replace(chr(39),chr(34)) for n in e.reserved_name)};")
    out.append(f"{ind}}}")
    return out

def render_msg(m, ind, syntax):
    out=[f"{ind}message {m.name} {{"]
    maps={n.name:n for n in m.nested_type if n.options.map_entry}
    for e in m.enum_type: out+=render_enum(e, ind+"  ")
    for n in m.nested_type:
        if not n.options.map_entry: out+=render_msg(n, ind+"  ", syntax)
    oneofs={}
    real_oneof=[i for i,o in enumerate(m.oneof_decl)]
    synthetic=set()
    for f in m.field:
        if f.HasField('oneof_index') and f.proto3_optional: synthetic.add(f.oneof_index)
    def field_line(f, in_oneof=False):
        t=f.type_name if f.type_name else TYPES[f.type]
        label=''
        if f.label==FD.LABEL_REPEATED:
            entry=f.type_name.split('.')[-1]
            if entry in maps:
                k=maps[entry].field[0]; v=maps[entry].field[1]
                kt=TYPES.get(k.type) or k.type_name; vt=v.type_name if v.type_name else TYPES[v.type]
                return f"map<{kt}, {vt}> {f.name} = {f.number};"
            label='repeated '
        elif syntax=='proto2' and not in_oneof:
            label='required ' if f.label==FD.LABEL_REQUIRED else 'optional '
        elif f.proto3_optional: label='optional '
        opts=[]
        if f.options.HasField('packed'): opts.append(f"packed = {'true' if f.options.packed else 'false'}")
        if f.options.HasField('deprecated') and f.options.deprecated: opts.append("deprecated = true")
        if f.HasField('json_name') and f.json_name != camel(f.name): opts.append(f'json_name = "{f.json_name}"')
        if f.HasField('default_value'):
            dv=f.default_value
            if f.type in (FD.TYPE_STRING, FD.TYPE_BYTES): dv='"'+dv+'"'
            opts.append(f"default = {dv}")
        o=f" [{', '.join(opts)}]" if opts else ''
        return f"{label}{t} {f.name} = {f.number}{o};"
    emitted=set()
    for f in m.field:
        if f.HasField('oneof_index') and f.oneof_index not in synthetic:
            oi=f.oneof_index
            if oi in emitted: continue
            emitted.add(oi)
            out.append(f"{ind}  oneof {m.oneof_decl[oi].name} {{")
            for g in m.field:
                if g.HasField('oneof_index') and g.oneof_index==oi:
                    out.append(f"{ind}    {field_line(g, True)}")
            out.append(f"{ind}  }}")
        else:
            out.append(f"{ind}  {field_line(f)}")
    for r in m.reserved_range:
        out.append(f"{ind}  reserved {r.start}{'' if r.end-1==r.start else ' to '+str(r.end-1)};")
    if m.reserved_name:
        out.append(f"{ind}  reserved {', '.join(repr(n).replace(chr(39),chr(34)) for n in m.reserved_name)};")
    out.append(f"{ind}}}")
    return out

def camel(name):
    parts=name.split('_'); return parts[0]+''.join(p[:1].upper()+p[1:] for p in parts[1:])

def render(fdp):
    syntax = fdp.syntax or 'proto2'
    out=[f"// {fdp.name}: written by scripts/tf_protos.py from the descriptors compiled into",
         "// TensorFlow's Python package (the same messages, field numbers and types; comments and",
         "// options other than packing left out).",'',f'syntax = "{syntax}";','',f"package {fdp.package};",'']
    for i,d in enumerate(fdp.dependency):
        pub=' public' if i in fdp.public_dependency else ''
        out.append(f'import{pub} "{d}";')
    if fdp.dependency: out.append('')
    for e in fdp.enum_type: out+=render_enum(e,''); out.append('')
    for m in fdp.message_type: out+=render_msg(m,'',syntax); out.append('')
    return "\n".join(out).rstrip()+"\n"

if __name__=='__main__':
    dest=sys.argv[1]
    mods=sys.argv[2:] or ['tensorflow.core.util.event_pb2', 'tensorflow.core.framework.tensor_pb2', 'tensorflow.core.framework.graph_pb2']
    seen=set()
    def visit(fd):
        if fd.name in seen or fd.name.startswith('google/protobuf/'): return
        seen.add(fd.name)
        for d in fd.dependencies: visit(d)
        fdp=descriptor_pb2.FileDescriptorProto(); fd.CopyToProto(fdp)
        path=os.path.join(dest, fd.name); os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path,'w').write(render(fdp)); print(fd.name)
    for m in mods: visit(importlib.import_module(m).DESCRIPTOR)
