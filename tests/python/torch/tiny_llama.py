"""A tiny model whose RoPE mirrors Hugging Face's Llama (transformers src/transformers/models/llama/modeling_llama.py
as of v4.48: LlamaRotaryEmbedding.forward(x, position_ids) -> cos, sin [batch, seq, d], computed once per forward and
handed to every layer; LlamaAttention.forward calling the module-level apply_rotary_pos_emb(q, k, cos, sin) with
q [batch, heads, seq, d]), for rope.watch's tests (tests/python/torch/test_watch.py) without a transformers
download. A planted bug: one layer (bug_layer) builds its own table, with base 10000 ("base") or at position_ids + 1
("plus-one"), as a layer type with its own RoPE config gone wrong."""
import torch
from torch import nn


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rotary_pos_emb(q, k, cos, sin, position_ids=None, unsqueeze_dim=1):
    cos = cos.unsqueeze(unsqueeze_dim)
    sin = sin.unsqueeze(unsqueeze_dim)
    return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)


class RotaryEmbedding(nn.Module):
    def __init__(self, inv_freq, attention_scaling=1.0):
        super().__init__()
        self.register_buffer("inv_freq", torch.as_tensor(inv_freq, dtype=torch.float32), persistent=False)
        self.attention_scaling = attention_scaling

    @torch.no_grad()
    def forward(self, x, position_ids):
        freqs = (self.inv_freq[None, :, None].float() @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return (emb.cos() * self.attention_scaling).to(x.dtype), (emb.sin() * self.attention_scaling).to(x.dtype)


class Attention(nn.Module):
    def __init__(self, layer_idx, heads, kv_heads, head_dim, own_rotary=None, shift=0, pass_position_ids=False):
        super().__init__()
        self.layer_idx, self.heads, self.kv_heads, self.head_dim = layer_idx, heads, kv_heads, head_dim
        hidden = heads * head_dim
        self.q_proj = nn.Linear(hidden, heads * head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
        self.own_rotary, self.shift, self.pass_position_ids = own_rotary, shift, pass_position_ids

    def forward(self, hidden_states, position_embeddings, position_ids):
        b, s, _ = hidden_states.shape
        q = self.q_proj(hidden_states).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(hidden_states).view(b, s, self.kv_heads, self.head_dim).transpose(1, 2)
        cos, sin = position_embeddings
        if self.own_rotary is not None:  # the planted bug: this layer's own table
            cos, sin = self.own_rotary(q, position_ids + self.shift)
        if self.pass_position_ids:  # transformers before v4.45 passed them (deprecated, unused)
            q, k = apply_rotary_pos_emb(q, k, cos, sin, position_ids)
        else:
            q, k = apply_rotary_pos_emb(q, k, cos, sin)
        return q, k


class TinyModel(nn.Module):
    def __init__(self, spec, layers=4, heads=4, kv_heads=2, bug_layer=None, bug="base", pass_position_ids=False,
                 dtype=torch.float32):
        super().__init__()
        torch.manual_seed(0)
        d = spec.head_dim
        self.embed = nn.Embedding(100, heads * d)
        self.rotary = RotaryEmbedding(spec.inv_freq, spec.attention_factor)
        plain = torch.tensor(10000.0) ** (-torch.arange(0, d, 2, dtype=torch.float32) / d)
        self.layers = nn.ModuleList()
        for i in range(layers):
            own, shift = None, 0
            if i == bug_layer:
                own = RotaryEmbedding(plain) if bug == "base" else self.rotary
                shift = 1 if bug == "plus-one" else 0
            self.layers.append(Attention(i, heads, kv_heads, d, own, shift, pass_position_ids))
        self.embed.to(dtype)  # the weights in dtype, inv_freq kept in float32 (a whole-model .to() rounds it too)
        self.layers.to(dtype)

    def forward(self, input_ids, position_ids=None):
        h = self.embed(input_ids)
        if position_ids is None:
            position_ids = torch.arange(input_ids.shape[1])[None].expand(input_ids.shape[0], -1)
        position_embeddings = self.rotary(h, position_ids)
        out = []
        for layer in self.layers:
            out.append(layer(h, position_embeddings, position_ids))
        return out
