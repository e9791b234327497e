# noisy paper App. B.3, Table 2: test MSE with feature noise (left) and the robustness drop (right,
# MSE with noise - clean MSE) of a dense linear model and a correctly routed MoE, trained on the same
# noisy modular data, vs the noise level sigma; one line style per size setting (k blocks). Points:
# trained models (mean +- standard error over seeds); lines: Theorem 3's Bayes risks.
# Usage: gnuplot -e "csv='results/moe_noisy_b3_table2.csv'; png='results/moe_noisy_b3_table2.png'" plots/moe_noisy_b3_table2.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/moe_noisy_b3_table2.csv'
if (!exists("png")) png = 'results/moe_noisy_b3_table2.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("awk -F, '/^#/ {next} !h {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; h = 1; next} {print $k}' '%s' | sort -n | uniq | tr '\\n' ' '", name, csv))
sizes = col_values("blocks")
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1300,550 enhanced font ",11"
  } else {
    set terminal png size 1300,550
  }
  set output png
} else {
  set terminal svg size 1300,550 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title sprintf("Dense vs correctly routed MoE, linear regression under feature noise (noisy App. B.3, Table 2); %s", trials_text)
set xlabel "feature-noise standard deviation {/Symbol s}"
set grid
set key top left box opaque
set logscale y
set format y "%.0e"
set title "test MSE with noise (points: trained; lines: Thm 3)"
set ylabel "MSE"
plot for [i = 1:words(sizes)] csv using (column("blocks") == word(sizes, i) + 0 ? column("sigma") : 1/0):"dense_noisy":"dense_noisy_se" with yerrorbars pt 7 lc i title sprintf("dense, k = %s", word(sizes, i)), \
     for [i = 1:words(sizes)] csv using (column("blocks") == word(sizes, i) + 0 ? column("sigma") : 1/0):"dense_thm3_noisy" with lines lw 2 lc i notitle, \
     for [i = 1:words(sizes)] csv using (column("blocks") == word(sizes, i) + 0 ? column("sigma") : 1/0):"moe_noisy":"moe_noisy_se" with yerrorbars pt 5 lc i + 2 title sprintf("MoE, k = %s", word(sizes, i)), \
     for [i = 1:words(sizes)] csv using (column("blocks") == word(sizes, i) + 0 ? column("sigma") : 1/0):"moe_thm3_noisy" with lines lw 2 dt 2 lc i + 2 notitle
set title "robustness drop: MSE with noise - clean MSE"
set ylabel "drop"
plot for [i = 1:words(sizes)] csv using (column("blocks") == word(sizes, i) + 0 ? column("sigma") : 1/0):"dense_drop":"dense_drop_se" with yerrorbars pt 7 lc i title sprintf("dense, k = %s", word(sizes, i)), \
     for [i = 1:words(sizes)] csv using (column("blocks") == word(sizes, i) + 0 ? column("sigma") : 1/0):"dense_thm3_drop" with lines lw 2 lc i notitle, \
     for [i = 1:words(sizes)] csv using (column("blocks") == word(sizes, i) + 0 ? column("sigma") : 1/0):"moe_drop":"moe_drop_se" with yerrorbars pt 5 lc i + 2 title sprintf("MoE, k = %s", word(sizes, i)), \
     for [i = 1:words(sizes)] csv using (column("blocks") == word(sizes, i) + 0 ? column("sigma") : 1/0):"moe_thm3_drop" with lines lw 2 dt 2 lc i + 2 notitle
unset logscale y
unset multiplot
}
